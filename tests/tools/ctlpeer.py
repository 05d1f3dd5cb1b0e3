#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ctlpeer - a misbehaving client of uringtuned's control socket, for tests.

    ctlpeer.py SOCKET MODE [--count N] [--seconds S] [--interval S] [--bytes N] [--data STR]

Modes (one line on stdout each, key=value):
  close         connect and close at once, --count times
  send-close    send {"cmd":"status"} and close without reading, --count times
  partial-read  send {"cmd":"status"}, read --bytes of the reply, close (Ctrl-C mid-reply)
  slow-read     send {"cmd":"status"}, then read one byte per --interval for at most --seconds
  slow-write    send {"cmd":"status"} one byte per --interval, for at most --seconds
  silent        open --count connections, send nothing, hold them up to --seconds
  stall         open --count connections, send {"cmd":"status"} on each and read nothing
                for --seconds (a reader that stalled: the daemon must hold little for it)
  pause-read    send {"cmd":"status"}, read --bytes, print "paused", wait for a line on
                stdin (at most --seconds), then read the rest: is it one whole JSON line?
  raw           send --data (or --bytes bytes of 'x'), shut down writing, print the reply

"ended" says how the daemon ended the connection: eof (it closed after its reply or an
error line), closed (it closed, what it had sent still queued here), reset (it closed
with data of ours unread), held (still open when we gave up), reply or error (a whole
JSON line came, an answer or {"error":...}).
"""
import argparse
import fcntl
import json
import select
import socket
import struct
import sys
import termios
import time

STATUS = b'{"cmd":"status"}'


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def recv_until_end(s, limit_s):
    """everything until EOF, reset or limit_s: (bytes, how it ended)"""
    s.settimeout(limit_s)
    got = bytearray()
    try:
        while True:
            b = s.recv(65536)
            if not b:
                return bytes(got), "eof"
            got += b
    except socket.timeout:
        return bytes(got), "held"
    except (ConnectionResetError, BrokenPipeError):
        return bytes(got), "reset"


def kind(b):
    """"reply" or "error" for a whole JSON line, None otherwise"""
    try:
        o = json.loads(b.split(b"\n", 1)[0])
    except ValueError:
        return None
    return "error" if isinstance(o, dict) and "error" in o else "reply"


def first_line(b):
    line = b.split(b"\n", 1)[0]
    return line[:160].decode("utf-8", "replace")


def m_close(a):
    for _ in range(a.count):
        connect(a.socket).close()
    print(f"close count={a.count}")


def m_send_close(a):
    for _ in range(a.count):
        s = connect(a.socket)
        s.sendall(STATUS + b"\n")
        s.close()
    print(f"send-close count={a.count}")


def m_partial_read(a):
    s = connect(a.socket)
    s.sendall(STATUS + b"\n")
    got = 0
    while got < a.bytes:
        b = s.recv(min(65536, a.bytes - got))
        if not b:
            break
        got += len(b)
    s.close()
    print(f"partial-read got={got}")


def m_slow_read(a):
    s = connect(a.socket)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(STATUS + b"\n")
    t0 = time.monotonic()
    got, ended = 0, "held"
    p = select.poll()
    p.register(s, select.POLLIN | select.POLLRDHUP)
    while time.monotonic() - t0 < a.seconds:
        # a daemon that closed leaves what it sent queued here: POLLHUP says it closed
        if any(ev & select.POLLHUP for _, ev in p.poll(0)):
            ended = "closed"
            break
        try:
            b = s.recv(1)
        except (ConnectionResetError, BrokenPipeError):
            ended = "reset"
            break
        if not b:
            ended = "eof"
            break
        got += 1
        time.sleep(a.interval)
    unread = struct.unpack("i", fcntl.ioctl(s, termios.FIONREAD, b"\0" * 4))[0]
    print(f"slow-read got={got} unread={unread} ended={ended} after_s={time.monotonic() - t0:.2f}")


def m_slow_write(a):
    s = connect(a.socket)
    t0 = time.monotonic()
    data = STATUS + b"\n"
    sent, ended = 0, "held"
    for i in range(len(data)):
        if time.monotonic() - t0 >= a.seconds:
            break
        try:
            s.send(data[i:i + 1])
        except (ConnectionResetError, BrokenPipeError):
            ended = "reset"
            break
        sent += 1
        s.settimeout(a.interval)
        try:
            b = s.recv(65536)
            rest, how = recv_until_end(s, 1)
            b += rest
            ended = kind(b) or how
            print(f"slow-write sent={sent} ended={ended} after_s={time.monotonic() - t0:.2f} "
                  f"line={first_line(b)}")
            return
        except socket.timeout:
            pass
        except (ConnectionResetError, BrokenPipeError):
            ended = "reset"
            break
    print(f"slow-write sent={sent} ended={ended} after_s={time.monotonic() - t0:.2f}")


def m_silent(a):
    socks = [connect(a.socket) for _ in range(a.count)]
    print(f"silent opened={a.count}", flush=True)
    t0 = time.monotonic()
    open_ = {s: True for s in socks}
    lines = {}
    last = None
    while any(open_.values()) and time.monotonic() - t0 < a.seconds:
        for s in socks:
            if not open_[s]:
                continue
            s.setblocking(False)
            try:
                b = s.recv(4096)
                if not b:
                    open_[s] = False
                    last = time.monotonic() - t0
                else:
                    lines[first_line(b)] = lines.get(first_line(b), 0) + 1
            except BlockingIOError:
                pass
            except (ConnectionResetError, BrokenPipeError):
                open_[s] = False
                last = time.monotonic() - t0
        time.sleep(0.05)
    still = sum(open_.values())
    closed_after = f"{last:.2f}" if last is not None else "-"
    print(f"silent count={a.count} closed_by_daemon={a.count - still} last_close_s={closed_after}")
    for line, n in lines.items():
        print(f"silent line x{n}: {line}")
    for s in socks:
        s.close()


def m_stall(a):
    socks = []
    for _ in range(a.count):
        s = connect(a.socket)
        s.sendall(STATUS + b"\n")
        socks.append(s)
    print(f"stall opened={a.count}", flush=True)
    time.sleep(a.seconds)
    queued = [struct.unpack("i", fcntl.ioctl(s, termios.FIONREAD, b"\0" * 4))[0] for s in socks]
    print(f"stall count={a.count} most_queued={max(queued)}")
    for s in socks:
        s.close()


def m_pause_read(a):
    s = connect(a.socket)
    s.sendall(STATUS + b"\n")
    got = bytearray()
    while len(got) < a.bytes:
        b = s.recv(a.bytes - len(got))
        if not b:
            break
        got += b
    print(f"paused got={len(got)}", flush=True)
    select.select([sys.stdin], [], [], a.seconds)
    rest, ended = recv_until_end(s, 5)
    got += rest
    try:
        o = json.loads(got)
        verdict = f"json=ok rings={len(o['rings'])} daemon_rings={o['daemon']['rings']}"
    except (ValueError, KeyError, TypeError) as e:
        verdict = f"json=bad ({e})"
    lines = got.count(b"\n")
    print(f"pause-read got={len(got)} ended={ended} newlines={lines} {verdict}")


def m_raw(a):
    data = a.data.encode() if a.data is not None else b"x" * a.bytes
    s = connect(a.socket)
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except (ConnectionResetError, BrokenPipeError):
        pass
    got, ended = recv_until_end(s, 5)
    print(f"raw ended={ended} line={first_line(got)}")


MODES = {
    "close": m_close, "send-close": m_send_close, "partial-read": m_partial_read,
    "slow-read": m_slow_read, "slow-write": m_slow_write, "silent": m_silent, "raw": m_raw,
    "stall": m_stall, "pause-read": m_pause_read,
}


def main():
    p = argparse.ArgumentParser(description="a misbehaving control-socket client")
    p.add_argument("socket")
    p.add_argument("mode", choices=sorted(MODES))
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--interval", type=float, default=1.0)
    p.add_argument("--bytes", type=int, default=1)
    p.add_argument("--data")
    a = p.parse_args()
    try:
        MODES[a.mode](a)
    except OSError as e:
        print(f"ctlpeer {a.mode}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
