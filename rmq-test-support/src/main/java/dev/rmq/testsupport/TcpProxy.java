package dev.rmq.testsupport;

import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A loopback TCP proxy in front of one server (Redis, ZooKeeper), or in front of several in turn, a connection each
 * (as a round-robin load balancer spreads connections over servers), for network faults a real client meets: added
 * latency, a stall (bytes held, then delivered late, as TCP does when a short partition heals), a reset of every
 * open connection, and refused new connections. Each direction of each connection is pumped by two threads of
 * its own with blocking I/O, one reading and one writing; while stalled, the pump does not read, so the bytes wait in the kernel's buffers and
 * flow control, exactly as on a real link that stopped carrying packets. Thread-safe; {@link #close()} stops
 * everything it started.
 */
public final class TcpProxy implements AutoCloseable {

    private static final int BUFFER = 64 * 1024;
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final String targetHost;
    private final List<Integer> targetPorts;
    /** Connections sent to each target, in the order of {@link #targetPorts}. */
    private final AtomicLongArray connections;
    private final AtomicInteger nextTarget = new AtomicInteger();
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final String name;
    private volatile boolean stalled;
    private volatile boolean refusing;
    private volatile long latencyNanos;
    private volatile boolean closed;

    private TcpProxy(String targetHost, List<Integer> targetPorts) throws IOException {
        this.targetHost = targetHost;
        this.targetPorts = List.copyOf(targetPorts);
        this.connections = new AtomicLongArray(targetPorts.size());
        this.listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        this.name = "tcp-proxy-" + NAMES.incrementAndGet() + "-" + targetPorts.get(0);
        Thread acceptor = new Thread(this::accept, name + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy on a free loopback port in front of {@code host:port}. */
    public static TcpProxy to(String host, int port) {
        if (host == null || port < 1 || port > 65_535) {
            throw new IllegalArgumentException("a proxy needs a target host and a port in 1..65535, was " + host + ":" + port);
        }
        return roundRobin(host, port);
    }

    /** A proxy on a free loopback port that sends each new connection to the next of {@code ports}, in turn. */
    public static TcpProxy roundRobin(String host, int... ports) {
        if (host == null || ports == null || ports.length == 0
                || Arrays.stream(ports).anyMatch(port -> port < 1 || port > 65_535)) {
            throw new IllegalArgumentException("a proxy needs a target host and ports in 1..65535, was " + host + ":"
                    + Arrays.toString(ports));
        }
        try {
            return new TcpProxy(host, Arrays.stream(ports).boxed().toList());
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a loopback port for a proxy to " + host + ":"
                    + Arrays.toString(ports), e);
        }
    }

    /** How many connections went to each target so far, in the order the ports were given. */
    public List<Long> connectionsPerTarget() {
        List<Long> counts = new ArrayList<>(targetPorts.size());
        for (int i = 0; i < targetPorts.size(); i++) {
            counts.add(connections.get(i));
        }
        return counts;
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** {@code 127.0.0.1:port}, for a ZooKeeper connect string. */
    public String hostAndPort() {
        return "127.0.0.1:" + port();
    }

    /** {@code redis://127.0.0.1:port}. */
    public String redisAddress() {
        return "redis://" + hostAndPort();
    }

    /** Delays every chunk of bytes, each way, by {@code latency}; {@code Duration.ZERO} for none. */
    public TcpProxy latency(Duration latency) {
        if (latency == null || latency.isNegative()) {
            throw new IllegalArgumentException("latency must be zero or positive, was " + latency);
        }
        latencyNanos = latency.toNanos();
        return this;
    }

    /** Holds every byte, both ways, on every connection, until {@link #heal()}; then they are delivered late. */
    public TcpProxy stall() {
        stalled = true;
        return this;
    }

    /** Ends a stall and a refusal: held bytes flow on, new connections are accepted. */
    public TcpProxy heal() {
        synchronized (gate) {
            stalled = false;
            refusing = false;
            gate.notifyAll();
        }
        return this;
    }

    /** Resets every open connection (an RST, as a restarted middlebox sends); new ones are accepted as before. */
    public TcpProxy resetAll() {
        for (Socket socket : List.copyOf(open)) {
            reset(socket);
        }
        return this;
    }

    /** Refuses new connections until {@link #heal()}: each is reset as soon as it is accepted. */
    public TcpProxy refuse() {
        refusing = true;
        return this;
    }

    /** How many client connections are open now. */
    public int openConnections() {
        return open.size() / 2;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            if (refusing) {
                reset(client);
                continue;
            }
            Socket server = new Socket();
            int target = Math.floorMod(nextTarget.getAndIncrement(), targetPorts.size());
            connections.incrementAndGet(target);
            try {
                server.connect(new InetSocketAddress(targetHost, targetPorts.get(target)), 5_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                reset(client);
                closeQuietly(server);
                continue;
            }
            open.add(client);
            open.add(server);
            pump(client, server, "up");
            pump(server, client, "down");
        }
    }

    /** Bytes read from one side, to be written to the other at {@code deliverAtNanos}; null bytes end the stream. */
    private record Chunk(long deliverAtNanos, byte @Nullable [] bytes) {
    }

    /**
     * Pumps one direction of a connection with two threads: one reads and stamps each chunk with when it is due
     * (now plus the latency), the other writes each when it is due, in order. So a latency delays every chunk by
     * itself, as a real link does, however many follow it: one thread that slept before each write would make
     * chunks that arrive closer together than the latency queue behind each other, later and later.
     */
    private void pump(Socket from, Socket to, String direction) {
        BlockingQueue<Chunk> due = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[BUFFER];
            try {
                // not closed here: closing it closes the socket, whose other direction may still have bytes due;
                // the writer closes both sockets once this direction's last chunk is written
                InputStream in = from.getInputStream();
                while (true) {
                    awaitFlowing();
                    int n = in.read(buffer);
                    if (n < 0) {
                        break;
                    }
                    due.add(new Chunk(System.nanoTime() + latencyNanos, Arrays.copyOf(buffer, n)));
                }
            } catch (IOException | InterruptedException e) {
                // the connection ended or was reset
            } finally {
                due.add(new Chunk(0, null));
            }
        }, name + "-" + direction + "-read");
        Thread writer = new Thread(() -> {
            try (OutputStream out = to.getOutputStream()) {
                while (true) {
                    Chunk chunk = due.take();
                    if (chunk.bytes() == null) {
                        break;
                    }
                    for (long wait; (wait = chunk.deliverAtNanos() - System.nanoTime()) > 0; ) {
                        // the sleep is the point: the link's added latency holds each chunk until its time
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                    // bytes read just before a stall are held too
                    awaitFlowing();
                    out.write(chunk.bytes());
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the connection ended or was reset
            } finally {
                open.remove(from);
                open.remove(to);
                closeQuietly(from);
                closeQuietly(to);
            }
        }, name + "-" + direction + "-write");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    private void awaitFlowing() throws InterruptedException {
        synchronized (gate) {
            while (stalled && !closed) {
                gate.wait(100);
            }
        }
    }

    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (SocketException e) {
            // already closed
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public void close() {
        closed = true;
        heal();
        try {
            listener.close();
        } catch (IOException e) {
            // nothing to do
        }
        resetAll();
    }

    @Override
    public String toString() {
        return name + " " + hostAndPort() + " -> " + targetHost + ":" + targetPorts;
    }
}
