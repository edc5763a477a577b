"""The stdio transport of ``vmark mcp``: our own line reader in front of the SDK's server session.

Like the SDK's ``stdio_server``, it takes the wire away from fd 0 and 1 while it serves (fd 0 reads the
null device, fd 1 writes to stderr, so a stray print or a child process cannot corrupt the wire) and
gives them back on the way out. Unlike it, every line is answered (:mod:`vmark.mcp.wire`): the
reader's own answers and the server's go out through one writer, one whole line at a time; and a pipe
(what every client spawning ``vmark mcp`` gives it) is read and written on the event loop itself, not in
worker threads: a thread's wake-up for each read, write and flush cost more than a small call's own work
(about 3 ms of a 1 KB ``document.read`` on a busy machine). A regular file or a terminal still goes through
threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator
from typing import BinaryIO

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from .wire import LineError, dump, read_line

ReadStream = MemoryObjectReceiveStream[SessionMessage | Exception]
WriteStream = MemoryObjectSendStream[SessionMessage]


#: a line may be as long as the client makes it (the reader buffers at most about twice this before it waits)
_LINE_LIMIT = 1 << 30


class _Wire(ABC):
    """The client's two ends: whole lines in, whole answers out (one lock keeps an answer in one piece)."""

    def __init__(self) -> None:
        # taken without a turn of the loop when free (the answer is not held back a turn behind other work)
        self._lock = anyio.Lock(fast_acquire=True)

    @abstractmethod
    async def _readline(self) -> bytes: ...

    @abstractmethod
    async def _put(self, data: bytes) -> None: ...

    async def lines(self) -> AsyncIterator[bytes]:
        while line := await self._readline():
            yield line.rstrip(b"\r\n")

    async def send(self, message: types.JSONRPCMessage) -> None:
        data = dump(message)
        async with self._lock:
            await self._put(data)


class _ThreadWire(_Wire):
    """Two files, read and written in worker threads."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        super().__init__()
        self._reader = anyio.wrap_file(reader)
        self._writer = anyio.wrap_file(writer)

    async def _readline(self) -> bytes:
        return await self._reader.readline()

    async def _put(self, data: bytes) -> None:
        await self._writer.write(data)
        await self._writer.flush()


class _PipeWire(_Wire):
    """Two pipes on the event loop (non-blocking while served, blocking again afterwards)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__()
        self._reader = reader
        self._writer = writer

    async def _readline(self) -> bytes:
        return await self._reader.readline()

    async def _put(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()


@contextlib.asynccontextmanager
async def _pipes(wire_in: BinaryIO, wire_out: BinaryIO) -> AsyncIterator[_Wire]:
    """The wire on the loop when both ends are pipes or sockets, else (a file, a terminal: left blocking, as a
    shell expects it) in worker threads. The loop's transports get descriptors of their own (they close
    them); the originals stay open."""
    if not (_is_pipe(wire_in) and _is_pipe(wire_out)):
        yield _ThreadWire(wire_in, wire_out)
        return
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=_LINE_LIMIT, loop=loop)
    transports: list[asyncio.BaseTransport] = []
    own_in, own_out = os.fdopen(os.dup(wire_in.fileno()), "rb", 0), os.fdopen(os.dup(wire_out.fileno()), "wb", 0)
    try:
        reading, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), own_in)
        transports.append(reading)
        writing, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, own_out)
        transports.append(writing)
    except (ValueError, OSError):  # not for the loop after all
        for transport in transports:
            transport.close()
        for file in (own_in, own_out)[len(transports) :]:
            file.close()
        transports = []
        wire: _Wire = _ThreadWire(wire_in, wire_out)
    else:
        wire = _PipeWire(stream, asyncio.StreamWriter(writing, protocol, None, loop))
    try:
        yield wire
    finally:
        for transport in transports:
            transport.close()
        _blocking(wire_in, wire_out)


def _is_pipe(file: BinaryIO) -> bool:
    try:
        mode = os.fstat(file.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _blocking(*files: BinaryIO) -> None:
    """The loop's transports made the shared descriptions non-blocking: whoever reads them next expects not."""
    for file in files:
        with contextlib.suppress(OSError, ValueError):
            os.set_blocking(file.fileno(), True)


async def _read(wire: _Wire, messages: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    async with messages:
        async for line in wire.lines():
            try:
                message = read_line(line)
            except LineError as exc:
                await wire.send(exc.response())
                continue
            if message is not None:
                await _hand_over(messages, message)


async def _hand_over(messages: MemoryObjectSendStream[SessionMessage | Exception], message: SessionMessage) -> None:
    """To the server at once when it is waiting for it (``send`` yields a turn of the loop first, every line)."""
    try:
        messages.send_nowait(message)
    except anyio.WouldBlock:
        await messages.send(message)


async def _write(wire: _Wire, answers: MemoryObjectReceiveStream[SessionMessage]) -> None:
    async with answers:
        async for answer in answers:
            await wire.send(answer.message)


@contextlib.asynccontextmanager
async def stdio_transport(
    reader: BinaryIO | None = None, writer: BinaryIO | None = None
) -> AsyncIterator[tuple[ReadStream, WriteStream]]:
    """``(read_stream, write_stream)`` for ``Server.run`` over stdin/stdout (or the given binary pipes)."""
    pipes = contextlib.nullcontext((reader, writer)) if reader is not None and writer is not None else _std_streams()
    with pipes as (wire_in, wire_out):
        async with _pipes(wire_in, wire_out) as wire:
            incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_read, wire, incoming_send)
                tasks.start_soon(_write, wire, outgoing_receive)
                yield incoming, outgoing


@contextlib.contextmanager
def _std_streams() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """Private duplicates of fd 0 and 1 for the wire; meanwhile fd 0 reads /dev/null and fd 1 writes to stderr.

    The duplicates are never closed: a worker thread may still be blocked reading the wire when the
    server ends (closing under it could hand its descriptor number to another file).
    """
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    writer = os.fdopen(wire_out, "wb", closefd=False)
    try:
        yield os.fdopen(wire_in, "rb", closefd=False), writer
    finally:
        with contextlib.suppress(OSError, ValueError):
            writer.flush()
        for saved, fd in ((wire_in, 0), (wire_out, 1)):
            with contextlib.suppress(OSError):
                os.dup2(saved, fd)
