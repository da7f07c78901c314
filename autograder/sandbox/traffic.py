"""Count what a kernel sends, in raw bytes and frames per channel, before it is decoded.

The executor's kernel client (:func:`metered_client_class`) receives every message frame by
frame without copying (``copy=False``) and charges it to a :class:`Meter` before the session
decodes a byte of it; past a channel's cap the meter stops the kernel and the message is dropped
undecoded. ZeroMQ delivers a multipart message whole, so one message of many frames (each under
``MAX_MESSAGE``) is in memory before it can be counted: what bounds that is the memory cap of the
process receiving it, which is why the executor runs inside the student's cgroup
(:mod:`autograder.sandbox.executor`), never in the grading worker. The heartbeat and stdin channels
are never opened (nothing listens there, so nothing queues there).
"""
import threading

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from traitlets import Type

from autograder.sandbox.limits import MB

CHANNELS = ("shell", "iopub", "control")  # the channels the executor opens
DELIMITER = b"<IDS|MSG>"  # jupyter_client.session.DELIM
FRAMES_PER_MB = 4096  # frames a channel may carry per MB of its byte cap (tiny-message floods)
QUIET_ENOUGH = 0.005  # seconds of IOPub silence that end the drain after the kernel_info handshake


class TrafficCapExceeded(Exception):
    """The kernel sent more than a channel's cap; the kernel has been stopped."""


class Meter:
    """Raw bytes and frames received per channel, against ``cap_mb`` per channel. ``stop`` is
    called once (from the receiving thread) when a cap is passed; ``over`` then says which."""

    def __init__(self, cap_mb, stop=None):
        self.cap_bytes, self.cap_frames = cap_mb * MB, cap_mb * FRAMES_PER_MB
        self.cap_mb = cap_mb
        self.bytes = dict.fromkeys(CHANNELS, 0)
        self.frames = dict.fromkeys(CHANNELS, 0)
        self.peak_message = 0  # the largest single message, bytes
        self.over = ""
        self.parent = ""  # msg_id of the request the message over the cap answered (its cell)
        self.stop = stop
        self._lock = threading.Lock()

    def charge(self, channel, frames):
        """Count one message's ``frames`` (zmq frames or bytes); TrafficCapExceeded when over."""
        size = sum(len(f) for f in frames)
        with self._lock:
            self.bytes[channel] += size
            self.frames[channel] += len(frames)
            self.peak_message = max(self.peak_message, size)
            first = not self.over and (self.bytes[channel] > self.cap_bytes or self.frames[channel] > self.cap_frames)
            if first:
                self.parent = _parent_id(frames)
                what = (f"{self.cap_mb} MB" if self.bytes[channel] > self.cap_bytes
                        else f"{self.cap_frames} message frames")
                self.over = f"sent the grader more than {what} on the kernel's {channel} channel"
            tripped = bool(self.over)
        if first and self.stop is not None:
            self.stop()
        if tripped:
            raise TrafficCapExceeded(self.over)

    def summary(self) -> dict:
        return {"bytes": dict(self.bytes), "frames": dict(self.frames), "peak_message": self.peak_message}


def _parent_id(frames, largest=4096) -> str:
    """The parent header's msg_id of a raw message (frames after the ``<IDS|MSG>`` delimiter:
    signature, header, parent header, ...), read only when that frame is small; else ""."""
    import json

    for index, frame in enumerate(frames[:-3]):
        if len(frame) == len(DELIMITER) and bytes(frame) == DELIMITER:
            parent = frames[index + 3]
            if len(parent) > largest:
                return ""
            try:
                found = json.loads(bytes(parent)).get("msg_id", "")
            except (ValueError, AttributeError):
                return ""
            return found if isinstance(found, str) else ""
    return ""


class MeteredChannel(AsyncZMQSocketChannel):
    """A channel that charges every message's raw frames to ``meter`` before decoding it."""

    meter: Meter = None
    channel: str = ""
    longest_wait = None  # seconds: while set, the most any get_msg waits

    async def get_msg(self, timeout=None):
        if self.longest_wait is not None:
            timeout = self.longest_wait if timeout is None else min(timeout, self.longest_wait)
        return await super().get_msg(timeout)

    async def _recv(self, **kwargs):
        frames = await self.socket.recv_multipart(copy=False)
        self.meter.charge(self.channel, frames)
        _, message = self.session.feed_identities(frames, copy=False)
        return self.session.deserialize(message, copy=False)


def metered_client_class(meter):
    """An AsyncKernelClient whose shell, iopub and control channels charge ``meter``; it opens
    neither heartbeat nor stdin, and is ready as soon as the kernel is."""
    bound = {name: type(f"Metered{name.title()}Channel", (MeteredChannel,), {"meter": meter, "channel": name})
             for name in CHANNELS}

    class MeteredKernelClient(AsyncKernelClient):
        shell_channel_class = Type(bound["shell"])
        iopub_channel_class = Type(bound["iopub"])
        control_channel_class = Type(bound["control"])

        def start_channels(self, shell=True, iopub=True, stdin=True, hb=True, control=True):
            super().start_channels(shell=shell, iopub=iopub, stdin=False, hb=False, control=control)

        async def wait_for_ready(self, timeout=None):
            """jupyter_client's, with IOPub drained until quiet for QUIET_ENOUGH, not 0.2 s (a fixed
            0.2 s per kernel): nbclient ignores messages that answer none of its cells."""
            self.iopub_channel.longest_wait = QUIET_ENOUGH
            try:
                await super()._async_wait_for_ready(timeout)
            finally:
                self.iopub_channel.longest_wait = None

    return MeteredKernelClient
