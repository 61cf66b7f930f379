"""``python -m alem_pz.play.web``: the same as the ``alem-serve`` console script."""

from alem_pz.play.web.server import main

if __name__ == "__main__":
    main()
