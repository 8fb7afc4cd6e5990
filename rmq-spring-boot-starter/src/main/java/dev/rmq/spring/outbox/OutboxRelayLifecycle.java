package dev.rmq.spring.outbox;

import dev.rmq.outbox.jdbc.JdbcOutbox;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.io.IOException;

/**
 * Runs the outbox's relay while the application runs: on every instance without ZooKeeper (their relays share the
 * table safely, each claiming other rows), and under ZooKeeper on the one instance that holds the relay's leader
 * latch, so that the rows reach Redis in the order they were written. Started last and stopped first, so that the
 * client it sends with is there for as long as it runs.
 */
final class OutboxRelayLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelayLifecycle.class);

    private final JdbcOutbox outbox;
    private final @Nullable CuratorFramework curator;
    private final String latchPath;
    private @Nullable LeaderLatch latch;
    private volatile boolean running;

    OutboxRelayLifecycle(JdbcOutbox outbox, @Nullable CuratorFramework curator, String zooKeeperRoot) {
        this.outbox = outbox;
        this.curator = curator;
        this.latchPath = zooKeeperRoot + "/outbox-relay";
    }

    @Override
    public synchronized void start() {
        running = true;
        if (curator == null) {
            outbox.start();
            return;
        }
        LeaderLatch leader = new LeaderLatch(curator, latchPath);
        leader.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                log.info("this instance relays the outbox now (it holds {})", latchPath);
                outbox.start();
            }

            @Override
            public void notLeader() {
                log.info("this instance no longer relays the outbox: another holds {}", latchPath);
                outbox.stop();
            }
        });
        try {
            leader.start();
        } catch (Exception e) {
            throw new IllegalStateException("the outbox relay could not join its leader latch at " + latchPath + ": "
                    + e, e);
        }
        latch = leader;
    }

    @Override
    public synchronized void stop() {
        running = false;
        LeaderLatch leader = latch;
        latch = null;
        if (leader != null) {
            try {
                leader.close(LeaderLatch.CloseMode.SILENT);
            } catch (IOException | IllegalStateException e) {
                log.debug("the outbox relay's leader latch did not close cleanly: {}", e.toString());
            }
        }
        outbox.stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
