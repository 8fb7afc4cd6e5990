package dev.rmq.faults;

import dev.rmq.testsupport.FreePorts;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Three ZooKeeper servers in the harness's JVM (Curator's {@link TestingCluster}) on loopback, with a tick of
 * 500 ms so that the consumers' 4 s sessions are allowed (2 to 20 ticks).
 */
final class ZooKeeperEnsemble implements Closeable {

    private final TestingCluster cluster;
    private final List<InstanceSpec> specs;
    private List<InstanceSpec> down = List.of();

    private ZooKeeperEnsemble(TestingCluster cluster, List<InstanceSpec> specs) {
        this.cluster = cluster;
        this.specs = specs;
    }

    static ZooKeeperEnsemble start() throws Exception {
        // the ZooKeeper admin server would bind port 8080
        System.setProperty("zookeeper.admin.enableServer", "false");
        // nine ports, no two the same: Curator's own choice, one port at a time, can repeat one
        int[] ports = FreePorts.distinct(9);
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            int at = (id - 1) * 3;
            specs.add(new InstanceSpec(null, ports[at], ports[at + 1], ports[at + 2], true, id, 500, -1));
        }
        TestingCluster cluster = new TestingCluster(specs);
        try {
            cluster.start();
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return new ZooKeeperEnsemble(cluster, specs);
    }

    String connectString() {
        return cluster.getConnectString();
    }

    /** Kills two of the three servers: the ensemble has no quorum until {@link #restoreQuorum()}. */
    synchronized String loseQuorum(Random random) throws Exception {
        List<InstanceSpec> shuffled = new ArrayList<>(specs);
        Collections.shuffle(shuffled, random);
        down = List.copyOf(shuffled.subList(0, 2));
        for (InstanceSpec spec : down) {
            cluster.killServer(spec);
        }
        return "servers " + down.stream().map(s -> Integer.toString(s.getServerId())).toList();
    }

    synchronized void restoreQuorum() throws Exception {
        for (InstanceSpec spec : down) {
            cluster.restartServer(spec);
        }
        down = List.of();
    }

    @Override
    public void close() throws IOException {
        cluster.close();
    }
}
