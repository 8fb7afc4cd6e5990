package dev.rmq.embedded;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-process ZooKeeper serves a real client on loopback, and closing it frees its port. */
class EmbeddedZooKeeperTests {

    @Test
    void servesAClientAndFreesItsPortWhenClosed() throws Exception {
        int port;
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start()) {
            port = server.port();
            assertThat(server.connectString()).isEqualTo("127.0.0.1:" + port);
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper client = new ZooKeeper(server.connectString(), 5_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            try {
                assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
                client.create("/rmq", "x".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                assertThat(client.getData("/rmq", false, null)).isEqualTo("x".getBytes());
                // the session timeout a client asks for is honoured down to a second
                assertThat(client.getSessionTimeout()).isEqualTo(5_000);
            } finally {
                client.close();
            }
            server.close();
            server.close();
        }
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(socket.getLocalPort()).isEqualTo(port);
        } catch (IOException e) {
            throw new AssertionError("port " + port + " still bound after close", e);
        }
    }

    @Test
    void twoServersRunSideBySide() {
        try (EmbeddedZooKeeper first = EmbeddedZooKeeper.start(); EmbeddedZooKeeper second = EmbeddedZooKeeper.start()) {
            assertThat(first.port()).isNotEqualTo(second.port());
        }
    }
}
