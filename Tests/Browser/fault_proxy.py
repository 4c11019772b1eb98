"""A TCP proxy between the browser and the server that fails the way real networks do.

`hold()` stops forwarding in both directions and keeps every socket open (packets merely delayed: a congested
or briefly lost Wi-Fi); `release()` delivers what waited. `drop_existing()` stops forwarding the connections open
now, forever and without closing them, while new connections work: what a phone or TV sees after a network
switch. One thread runs it; `stop()` (or leaving the `with` block) closes every socket and ends the thread.
"""
import selectors, socket, threading


class FaultProxy:
    def __init__(self, target_port, target_host="127.0.0.1"):
        self.target = (target_host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.lock = threading.Lock()
        self.held = False
        self.stopping = False
        self.peers = {}       # socket -> the socket its bytes go to (None: upstream not yet connected)
        self.dead = []        # dropped sockets, kept open until stop()
        self.thread = threading.Thread(target=self._run, name="fault-proxy", daemon=True)
        self.thread.start()

    def hold(self):
        with self.lock:
            self.held = True
            for sock in self.peers:
                self.selector.unregister(sock)

    def release(self):
        with self.lock:
            self.held = False
            for sock in self.peers:
                self.selector.register(sock, selectors.EVENT_READ)

    def drop_existing(self):
        """Every connection open now goes silent for good (its sockets stay open); new ones are forwarded."""
        with self.lock:
            for sock in list(self.peers):
                self._forget(sock, keep_open=True)

    def stop(self):
        with self.lock:
            self.stopping = True
        self.thread.join(10)
        for sock in [*self.peers, *self.dead, self.listener]:
            try:
                sock.close()
            except OSError:
                pass
        self.peers.clear()
        self.dead.clear()
        self.selector.close()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()

    def _forget(self, sock, keep_open=False):
        if sock not in self.peers:
            return
        peer = self.peers.pop(sock)
        for each in (sock, peer):
            if each is None:
                continue
            self.peers.pop(each, None)
            if not self.held:
                self.selector.unregister(each)
            if keep_open:
                self.dead.append(each)
            else:
                each.close()

    def _run(self):
        while True:
            events = self.selector.select(timeout=0.05)
            with self.lock:
                if self.stopping:
                    return
                for key, _ in events:
                    sock = key.fileobj
                    if sock is self.listener:
                        self._accept()
                    elif sock in self.peers and not self.held:
                        self._pump(sock)

    def _accept(self):
        try:
            client, _ = self.listener.accept()
        except BlockingIOError:
            return
        # The server hears of a connection only once bytes flow: a held network delivers no handshake either.
        client.settimeout(5)
        self.peers[client] = None
        if not self.held:
            self.selector.register(client, selectors.EVENT_READ)

    def _pump(self, sock):
        try:
            data = sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._forget(sock)
            return
        peer = self.peers.get(sock)
        if peer is None:
            try:
                peer = socket.create_connection(self.target, timeout=5)
            except OSError:
                self._forget(sock)
                return
            self.peers[sock] = peer
            self.peers[peer] = sock
            self.selector.register(peer, selectors.EVENT_READ)
        try:
            peer.sendall(data)
        except OSError:
            self._forget(sock)
