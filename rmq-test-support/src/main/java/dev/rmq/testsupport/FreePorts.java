package dev.rmq.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Free loopback ports, several at once and all different. Asking for one free port at a time (bind port 0, read it,
 * close) can hand out the same port twice, since the system may give a closed port again at once: a ZooKeeper
 * ensemble whose nine ports were chosen so once had a server's election port equal to another's client port, and the
 * server that lost the bind asked ZooKeeper to end the JVM. Here every socket stays open until all are chosen.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /** {@code count} loopback ports free now, no two the same. */
    public static int[] distinct(int count) {
        List<ServerSocket> sockets = new ArrayList<>(count);
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("could not find " + count + " free loopback ports", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing a listening socket that accepted nothing
                }
            }
        }
    }
}
