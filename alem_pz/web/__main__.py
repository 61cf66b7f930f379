"""``python -m alem_pz.web``: the same as the ``alem-serve`` console script."""

from alem_pz.web.server import main

if __name__ == "__main__":
    main()
