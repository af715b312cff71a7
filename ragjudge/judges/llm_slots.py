"""Request slots: how many requests are at the server at once, and the hand-over from one to the next.

A job builds its request (prompt, body, the openai client's own request building) before it holds a slot, and
takes the slot only as its bytes are about to leave; when the client's transport can say so (the loopback
transport of :mod:`ragjudge.judges.llm_transport`), the slot is given back the moment the reply has arrived,
and the next request goes out before this reply is parsed. At concurrency 1 the server then waits only for
the hand-over, not for the client's work on either side of it.

The slot is admitted by a check the job supplies (the budget still allows a request; the format ladder has
not moved since the body was built), so a request prepared ahead is never sent under stale settings: it is
refused with :class:`SlotRefused` and built again, or skipped with the budget's reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["CURRENT", "Slot", "SlotRefused"]


class SlotRefused(Exception):
    """The prepared request may not go: ``reason`` says why it is skipped, or None to build it again."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason or "settings changed while the request waited; build it again")
        self.reason = reason


class Slot:
    """One request's claim on the concurrency limit; give it back any number of times, it is released once."""

    __slots__ = ("_admit", "_early", "_limit", "held")

    def __init__(self, limit: asyncio.Semaphore, admit: Callable[[], None], early: Callable[[], bool]) -> None:
        self._limit = limit
        self._admit = admit
        self._early = early
        self.held = False

    async def take(self) -> None:
        """Wait for a free slot, then run the admission check (which may raise :class:`SlotRefused`)."""
        await self._limit.acquire()
        self.held = True
        try:
            self._admit()
        except BaseException:
            self.give_back()
            raise

    def give_back(self) -> None:
        """Free the slot (once)."""
        if self.held:
            self.held = False
            self._limit.release()

    async def reply_arrived(self) -> None:
        """Called by a transport with the reply in hand: free the slot now if the job allows it, and let a
        request waiting for it go out before this reply is processed."""
        if self.held and self._early():
            self.give_back()
            await asyncio.sleep(0)


# The slot of the request the current task is sending; set by the runner around a send through a transport
# that takes slots itself.
CURRENT: ContextVar[Slot | None] = ContextVar("ragjudge_llm_slot", default=None)
