"""uv run python -m infra.cluster up|serve|down|status (as root): see infra/cluster/__init__.py."""

import sys

from infra import cluster

USAGE = "usage: python -m infra.cluster up|serve|down|status"


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("up", "serve", "down", "status"):
        print(USAGE, file=sys.stderr)
        return 2
    if argv[0] == "up":
        cluster.up()
        print(cluster.status())
    elif argv[0] == "serve":
        cluster.serve()
        print(cluster.status())
    elif argv[0] == "down":
        cluster.down()
    else:
        print(cluster.status())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
