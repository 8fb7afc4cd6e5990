package dev.rmq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Finds loopback ports nobody listens on. The port is released before redis-server binds it, so
 * another process can grab it in between; callers retry on "Address already in use".
 */
final class FreePorts {

    /** Redis Cluster listens on the data port plus this offset for its node-to-node bus. */
    static final int CLUSTER_BUS_OFFSET = 10_000;

    /** The machine's own Redis; tests must never talk to it, even by accident. */
    private static final int DEFAULT_REDIS_PORT = 6379;

    private FreePorts() {
    }

    static int pick(boolean withClusterBusPort) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = bindAndRelease(0);
            if (port == DEFAULT_REDIS_PORT) {
                continue;
            }
            if (!withClusterBusPort) {
                return port;
            }
            int bus = port + CLUSTER_BUS_OFFSET;
            if (bus <= 65_535 && isFree(bus)) {
                return port;
            }
        }
        throw new IllegalStateException("Could not find a free loopback port" + (withClusterBusPort ? " whose cluster bus port (+10000) is free too" : ""));
    }

    private static boolean isFree(int port) {
        try {
            bindAndRelease(port);
            return true;
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    private static int bindAndRelease(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(RedisServer.HOST, port));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot bind " + RedisServer.HOST + ":" + port, e);
        }
    }
}
