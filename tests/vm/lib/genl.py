#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send one raw generic netlink request and print what the kernel answered.

For tests that need requests a well-behaved client never builds: wrong
attribute lengths, truncated attributes, missing NLA_F_NESTED, ...

Usage: genl.py [-d] [-V VERSION] [-r RESERVED] [-f FLAGS] FAMILY CMD [ATTR...]
  -d          a dump request (NLM_F_DUMP)
  -V VERSION  genl header version (default 1)
  -r RESERVED the genl header's reserved field (default 0)
  -f FLAGS    nlmsg_flags bits added to the request's (e.g. 0x400)
  FAMILY      family name, resolved through the genl controller
  CMD         command number
  ATTR        TYPE:KIND:VALUE with KIND one of
                u8 u16 u32 u64  a number
                str             a NUL-terminated string
                hex             raw payload bytes, in hex
                nest            nested attributes, '+'-separated ATTRs
                                (NLA_F_NESTED set; 'nestraw' leaves it off)
              or raw:HEX, bytes appended as they are (e.g. a truncated
              attribute)

Prints "errno N" (0: success), "extack MSG" if the kernel sent a message,
"miss_type N" if it named a missing attribute, and "replies N", the number
of data messages. Exits 0 if the kernel answered, 1 otherwise.

As a module: Genl(name).request(cmd, payload) -> (errno, msg, replies),
with attr() and nest() to build payloads; request() also takes version=,
reserved= and flags= (extra nlmsg_flags).
"""
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_MISS_TYPE = 1, 5
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLA_F_NESTED = 0x8000


def align(n):
    return (n + 3) & ~3


def attr(atype, data):
    """One attribute, padded to 4 bytes."""
    hdr = struct.pack("=HH", 4 + len(data), atype)
    return hdr + data + b"\0" * (align(len(data)) - len(data))


def nest(atype, *attrs, flag=True):
    """A nest of already built attributes."""
    return attr(atype | (NLA_F_NESTED if flag else 0), b"".join(attrs))


def parse_attrs(data):
    """{type: payload} of a run of attributes (the last one of each type)."""
    out = {}
    while len(data) >= 4:
        alen, atype = struct.unpack_from("=HH", data)
        if alen < 4:
            break
        out[atype & 0x3FFF] = data[4:alen]
        data = data[align(alen):]
    return out


class Genl:
    def __init__(self, family):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.seq = os.getpid() & 0xFFFF
        err, msg, replies = self._request(
            GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
            attr(CTRL_ATTR_FAMILY_NAME, family.encode() + b"\0"))
        if err:
            raise OSError(err, "cannot resolve family %s: %s" % (family, msg))
        attrs = parse_attrs(replies[0][4:])
        self.id = struct.unpack("=H", attrs[CTRL_ATTR_FAMILY_ID])[0]

    def request(self, cmd, payload=b"", dump=False, version=1, reserved=0,
                flags=0):
        """Send a request; return (errno, extack message, [reply payloads])."""
        return self._request(self.id, cmd, version, payload, dump, reserved,
                             flags)

    def _request(self, ftype, cmd, version, payload, dump=False, reserved=0,
                 extra=0):
        self.seq += 1
        flags = NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK) | extra
        body = struct.pack("=BBH", cmd, version, reserved) + payload
        self.sock.send(struct.pack("=IHHII", 16 + len(body), ftype, flags,
                                   self.seq, 0) + body)
        replies = []
        self.miss_type = None
        while True:
            buf = self.sock.recv(1 << 20)
            while len(buf) >= 16:
                mlen, mtype, mflags, seq, _ = struct.unpack_from("=IHHII", buf)
                msg, buf = buf[16:mlen], buf[align(mlen):]
                if seq != self.seq:
                    continue
                if mtype == NLMSG_ERROR or mtype == NLMSG_DONE:
                    err = -struct.unpack_from("=i", msg)[0] if msg else 0
                    # an error echoes the request's header (capped) first
                    tlvs = msg[4 + 16:] if mtype == NLMSG_ERROR else msg[4:]
                    text = ""
                    if mflags & NLM_F_ACK_TLVS:
                        ext = parse_attrs(tlvs)
                        text = ext.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0")
                        text = text.decode(errors="replace")
                        if NLMSGERR_ATTR_MISS_TYPE in ext:
                            self.miss_type = struct.unpack(
                                "=I", ext[NLMSGERR_ATTR_MISS_TYPE])[0]
                    return err, text, replies
                replies.append(msg)


def parse_spec(spec):
    """Bytes for one command-line ATTR."""
    if spec.startswith("raw:"):
        return bytes.fromhex(spec[4:])
    atype, kind, value = spec.split(":", 2)
    atype = int(atype, 0)
    if kind in ("u8", "u16", "u32", "u64"):
        fmt = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q"}[kind]
        return attr(atype, struct.pack(fmt, int(value, 0)))
    if kind == "str":
        return attr(atype, value.encode() + b"\0")
    if kind == "hex":
        return attr(atype, bytes.fromhex(value))
    if kind in ("nest", "nestraw"):
        inner = [parse_spec(s) for s in value.split("+") if s]
        return nest(atype, *inner, flag=kind == "nest")
    raise ValueError("unknown attribute kind %r" % kind)


def main(argv):
    dump, opts = False, {"-V": 1, "-r": 0, "-f": 0}
    while argv and argv[0].startswith("-"):
        if argv[0] == "-d":
            dump, argv = True, argv[1:]
        elif argv[0] in opts and len(argv) > 1:
            opts[argv[0]], argv = int(argv[1], 0), argv[2:]
        else:
            break
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        g = Genl(argv[0])
        payload = b"".join(parse_spec(s) for s in argv[2:])
        err, msg, replies = g.request(int(argv[1], 0), payload, dump,
                                      opts["-V"], opts["-r"], opts["-f"])
    except (OSError, ValueError) as e:
        print("genl.py: %s" % e, file=sys.stderr)
        return 1
    print("errno %d" % err)
    if msg:
        print("extack %s" % msg)
    if g.miss_type is not None:
        print("miss_type %d" % g.miss_type)
    print("replies %d" % len(replies))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
