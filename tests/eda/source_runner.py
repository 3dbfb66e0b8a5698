"""Run an event source's ``main`` as ansible-rulebook does: a task putting events on an asyncio
queue, cancelled when the engine stops."""

import asyncio
import time


async def collect(main, args, count=None, timeout=60.0, until=None, maxsize=1):
    """Run a source until ``count`` events were taken from its queue (or ``until(events)`` is
    true), then stop it as ansible-rulebook does (cancel the task). Events the source had already
    put on the queue are delivered too: they are the engine's from then on."""
    queue = asyncio.Queue(maxsize=maxsize)
    task = asyncio.ensure_future(main(queue, args))
    events = []
    deadline = time.monotonic() + timeout
    try:
        while (count is None or len(events) < count) and not (until and until(events)):
            if task.done():
                task.result()  # the source's error, if it failed
                raise AssertionError("the source stopped by itself")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("%d events after %.0f s, expected %s" % (len(events), timeout, count))
            try:
                events.append(await asyncio.wait_for(queue.get(), min(remaining, 0.5)))
            except asyncio.TimeoutError:
                pass
    finally:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
    while not queue.empty():
        events.append(queue.get_nowait())
    return events


def run(coroutine):
    return asyncio.run(coroutine)
