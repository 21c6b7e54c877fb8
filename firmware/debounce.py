"""Tag presence debouncing: RC522 polls flicker, so a tag is gone only after 3 missed polls.

Pure module: runs under MicroPython and CPython.
"""

MISSES_FOR_GONE = 3


class Debouncer:
    """Tracks which tags are on the reader from one poll's set of UIDs to the next.

    ``update(seen)`` takes the UIDs seen by one poll and returns ``(arrived, gone)``: UIDs seen
    for the first time (in the order given) and UIDs just missed for the ``misses``-th poll in a
    row (in the order they arrived). A tag missed for fewer polls that comes back is not new.
    """

    def __init__(self, misses=MISSES_FOR_GONE):
        if misses < 1:
            raise ValueError("misses must be at least 1")
        self.misses = misses
        self.present = {}  # uid -> consecutive missed polls
        self.order = []  # arrival order

    def update(self, seen):
        arrived = []
        gone = []
        for uid in seen:
            if uid in self.present:
                self.present[uid] = 0
            elif uid not in arrived:
                arrived.append(uid)
        for uid in self.order:
            if uid in seen:
                continue
            missed = self.present[uid] + 1
            if missed >= self.misses:
                gone.append(uid)
            else:
                self.present[uid] = missed
        for uid in gone:
            del self.present[uid]
            self.order.remove(uid)
        for uid in arrived:
            self.present[uid] = 0
            self.order.append(uid)
        return arrived, gone

    def is_present(self, uid):
        return uid in self.present

    def uids(self):
        return list(self.order)

    def clear(self):
        """Forget every tag (e.g. the chip was reset); returns the UIDs that were present."""
        was = list(self.order)
        self.present = {}
        self.order = []
        return was
