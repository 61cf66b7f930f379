"""alem for people: ``keyboard`` (``alem-play``, hot-seat play in a pygame window) with its key
table ``keys``, ``gif`` (``alem-record``: episodes as animated GIFs) and ``web`` (``alem-serve``
and ``alem-replay``: people and AI seats in browsers, every game recorded).
"""
