"""A file system that forgets what was never synced: PowerCutTest mounts it (FUSE, through the fusepy
library) and runs a PEC provider's spool and mailboxes on it.

The model, stated so a reader knows what it proves: a file's bytes are held in memory and count as on
the disk only once fsync(2) or fdatasync(2) of that file returned; names (create, mkdir, rename,
unlink) are on the disk at once, as on a file system mounted with dirsync. A power cut ("cut" on
stdin) puts every file back to its bytes as of its last sync (empty when never synced) and fails
every call with EIO until power is back ("up"); a handle opened before the cut stays dead after it,
as the process that held it would be. syncfs(2) never reaches a plain FUSE file system (the kernel
forwards it to virtiofs and fuseblk only), so nothing but a file's own fsync saves its bytes here.

stdin: cut | up | quit (or end of input): each answered with one line on stdout. "ready" is printed
once the kernel has mounted it. Usage: powercut_fs.py MOUNTPOINT
"""

import errno
import os
import stat
import subprocess
import sys
import threading
import time

try:
    import fusepy as fuse  # Debian's python3-fusepy
except ImportError:
    import fuse  # PyPI's fusepy


class Node:
    def __init__(self, directory):
        self.directory = directory
        self.data = bytearray()
        self.synced = b""
        self.mtime = time.time()


class PowerCutFs(fuse.Operations):
    def __init__(self, mountpoint):
        self.mountpoint = mountpoint
        self.mutex = threading.RLock()
        self.nodes = {"/": Node(True)}
        self.handles = {}  # fh -> (node, epoch)
        self.next_fh = 1
        self.epoch = 0
        self.down = False
        self.fsyncs = {}  # top-level directory -> fsyncs of files under it

    # ------------------------------------------------------------- helpers
    def _check(self):
        if self.down:
            raise fuse.FuseOSError(errno.EIO)

    def _node(self, path):
        node = self.nodes.get(path)
        if node is None:
            raise fuse.FuseOSError(errno.ENOENT)
        return node

    def _handle(self, path, fh):
        entry = self.handles.get(fh)
        if entry is None or entry[1] != self.epoch:
            raise fuse.FuseOSError(errno.EIO)  # opened before the power cut
        return entry[0]

    def _open_handle(self, node):
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = (node, self.epoch)
        return fh

    @staticmethod
    def _parent(path):
        return os.path.dirname(path) or "/"

    # ------------------------------------------------------------- control
    def cut(self):
        with self.mutex:
            files = 0
            dropped = 0
            for node in self.nodes.values():
                if node.directory:
                    continue
                if bytes(node.data) != node.synced:
                    files += 1
                    dropped += len(node.data)
                node.data = bytearray(node.synced)
            self.down = True
            self.epoch += 1
            self.handles.clear()
            return "cut %d files %d bytes" % (files, dropped)

    def up(self):
        with self.mutex:
            self.down = False
            return "up"

    def stats(self):
        with self.mutex:
            return "fsyncs " + " ".join("%s=%d" % kv for kv in sorted(self.fsyncs.items()))

    # ------------------------------------------------------------- FUSE calls
    def init(self, path):
        print("ready", flush=True)

    def getattr(self, path, fh=None):
        with self.mutex:
            self._check()
            node = self._node(path)
            if node.directory:
                mode = stat.S_IFDIR | 0o755
                size = 4096
            else:
                mode = stat.S_IFREG | 0o644
                size = len(node.data)
            return {
                "st_mode": mode,
                "st_nlink": 2 if node.directory else 1,
                "st_size": size,
                "st_mtime": node.mtime,
                "st_atime": node.mtime,
                "st_ctime": node.mtime,
                "st_uid": os.getuid(),
                "st_gid": os.getgid(),
            }

    def readdir(self, path, fh):
        with self.mutex:
            self._check()
            prefix = path.rstrip("/") + "/"
            names = [".", ".."]
            for p in self.nodes:
                if p != "/" and p.startswith(prefix) and "/" not in p[len(prefix):]:
                    names.append(p[len(prefix):])
            return names

    def mkdir(self, path, mode):
        with self.mutex:
            self._check()
            if path in self.nodes:
                raise fuse.FuseOSError(errno.EEXIST)
            self._node(self._parent(path))
            self.nodes[path] = Node(True)

    def rmdir(self, path):
        with self.mutex:
            self._check()
            prefix = path.rstrip("/") + "/"
            if any(p.startswith(prefix) for p in self.nodes):
                raise fuse.FuseOSError(errno.ENOTEMPTY)
            self._node(path)
            del self.nodes[path]

    def create(self, path, mode, fi=None):
        with self.mutex:
            self._check()
            self._node(self._parent(path))
            node = self.nodes.get(path)
            if node is None:
                node = Node(False)
                self.nodes[path] = node
            return self._open_handle(node)

    def open(self, path, flags):
        with self.mutex:
            self._check()
            node = self._node(path)
            if flags & os.O_TRUNC:
                node.data = bytearray()
            return self._open_handle(node)

    def opendir(self, path):
        with self.mutex:
            self._check()
            self._node(path)
            return 0

    def read(self, path, size, offset, fh):
        with self.mutex:
            self._check()
            node = self._handle(path, fh)
            return bytes(node.data[offset:offset + size])

    def write(self, path, data, offset, fh):
        with self.mutex:
            self._check()
            node = self._handle(path, fh)
            if offset > len(node.data):
                node.data.extend(b"\0" * (offset - len(node.data)))
            node.data[offset:offset + len(data)] = data
            node.mtime = time.time()
            return len(data)

    def truncate(self, path, length, fh=None):
        with self.mutex:
            self._check()
            node = self._handle(path, fh) if fh else self._node(path)
            if length < len(node.data):
                del node.data[length:]
            else:
                node.data.extend(b"\0" * (length - len(node.data)))

    def fsync(self, path, datasync, fh):
        with self.mutex:
            self._check()
            node = self._handle(path, fh)
            node.synced = bytes(node.data)
            top = path.strip("/").split("/")[0]
            self.fsyncs[top] = self.fsyncs.get(top, 0) + 1
            return 0

    def fsyncdir(self, path, datasync, fh):
        with self.mutex:
            self._check()  # names are on the disk at once: nothing more to do
            return 0

    def flush(self, path, fh):
        with self.mutex:
            self._check()
            return 0

    def release(self, path, fh):
        with self.mutex:
            self.handles.pop(fh, None)
            return 0

    def releasedir(self, path, fh):
        return 0

    def unlink(self, path):
        with self.mutex:
            self._check()
            self._node(path)
            del self.nodes[path]

    def rename(self, old, new):
        with self.mutex:
            self._check()
            node = self._node(old)
            self._node(self._parent(new))
            if node.directory:
                prefix = old.rstrip("/") + "/"
                moved = {p: n for p, n in self.nodes.items() if p.startswith(prefix)}
                for p in moved:
                    del self.nodes[p]
                for p, n in moved.items():
                    self.nodes[new.rstrip("/") + "/" + p[len(prefix):]] = n
            del self.nodes[old]
            self.nodes[new] = node

    def chmod(self, path, mode):
        return 0

    def chown(self, path, uid, gid):
        return 0

    def utimens(self, path, times=None):
        with self.mutex:
            self._check()
            self._node(path).mtime = time.time()
            return 0

    def statfs(self, path):
        return {"f_bsize": 4096, "f_frsize": 4096, "f_blocks": 1 << 20, "f_bfree": 1 << 19,
                "f_bavail": 1 << 19, "f_files": 1 << 20, "f_ffree": 1 << 19, "f_namemax": 255}


def control(fs):
    for line in sys.stdin:
        command = line.strip()
        if command == "cut":
            print(fs.cut(), flush=True)
        elif command == "up":
            print(fs.up(), flush=True)
        elif command == "stats":
            print(fs.stats(), flush=True)
        elif command == "quit":
            break
        else:
            print("unknown command " + command, flush=True)
    # the test is done (or gone): unmount, which ends the FUSE loop and this process
    subprocess.run(["umount", "-l", fs.mountpoint], check=False)


def main():
    mountpoint = sys.argv[1]
    fs = PowerCutFs(mountpoint)
    threading.Thread(target=control, args=(fs,), daemon=True).start()
    # direct_io and no attribute or entry caching: every read, write and size comes from here, so
    # what a power cut drops is not served from the kernel's page cache afterwards
    fuse.FUSE(fs, mountpoint, foreground=True, nothreads=False, direct_io=True,
              attr_timeout=0, entry_timeout=0, negative_timeout=0, big_writes=True,
              max_write=131072, fsname="powercut", subtype="powercut")


if __name__ == "__main__":
    main()
