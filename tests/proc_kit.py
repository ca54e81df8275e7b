"""Processes as /proc shows them, for tests that check what a service leaves running."""

from __future__ import annotations

from pathlib import Path


def family(pid: int | None) -> set[int]:
    """A process and all its descendants (PostgreSQL forks one per connection and helper)."""
    assert pid is not None
    children: dict[int, set[int]] = {}
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), set()).add(int(entry.parent.name))
    found, frontier = {pid}, [pid]
    while frontier:
        fresh = children.get(frontier.pop(), set()) - found
        found |= fresh
        frontier.extend(fresh)
    return found


def alive(pid: int) -> bool:
    """Running, that is: a zombie waiting for its parent to reap it has already stopped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"
