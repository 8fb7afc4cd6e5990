package dev.rmq.producer;

import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.testsupport.RedisCluster;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

class DurableSendTests {

    @Test
    void aDurableSendWaitsForReplicasOnEveryMasterItWroteTo() {
        RedisCluster cluster = RedisTestServers.sharedCluster();
        RedissonClient redisson = Fixtures.redisson(cluster);
        try {
            RmqClient rmq = RmqClient.builder(redisson).topic(Fixtures.topic("durable", TopicType.PRIORITY, 16)).build();
            RmqProducer durable = rmq.producer().withDurability(Durability.replicas(1, Duration.ofSeconds(2)));
            List<OutgoingMessage> batch = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                batch.add(OutgoingMessage.priority("durable", "d" + i, 50).withKey("durable-key-" + i));
            }
            assertThat(durable.sendAll(batch)).hasSize(64);
            assertThat(durable.send(OutgoingMessage.priority("durable", "one", 60).withKey("single")).merged()).isFalse();
            assertThat(rmq.inspector().totals("durable").backlog()).isEqualTo(65);
            assertThat(rmq.deadQueue().purge("durable")).isZero();
            for (int slot = 0; slot < 16; slot++) {
                SlotKeys keys = new KeyLayout("").slot("durable", slot);
                redisson.getKeys().delete(keys.store(), keys.body());
            }
        } finally {
            redisson.shutdown();
        }
    }

    /**
     * A batch over several masters, one of whose replicas does not acknowledge: the others' replicas must not make up
     * for it. The replica's process is stopped (SIGSTOP) for the send, well within the cluster's node timeout, and
     * resumed whatever happens.
     */
    @Test
    void aDurableBatchFailsWhenOneMastersReplicaDidNotAcknowledgeThoughTheOthersDid() throws Exception {
        RedisCluster cluster = RedisTestServers.sharedCluster();
        RedisServer replica = cluster.replicas().get(0);
        int itsMaster = Integer.parseInt(replica.info("replication").get("master_port"));
        RedissonClient redisson = Fixtures.redisson(cluster);
        try {
            RmqClient rmq = RmqClient.builder(redisson).topic(Fixtures.topic("durable-split", TopicType.PRIORITY, 16))
                    .build();
            Set<Integer> masters = new HashSet<>();
            for (int slot = 0; slot < 16; slot++) {
                masters.add(cluster.masterForSlot(cluster.keySlot(new KeyLayout("").slot("durable-split", slot)
                        .store())).port());
            }
            assertThat(masters).as("the topic's slots lie on every master").hasSize(3).contains(itsMaster);
            List<OutgoingMessage> batch = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                batch.add(OutgoingMessage.priority("durable-split", "d" + i, 50).withKey("split-key-" + i));
            }
            RmqProducer durable = rmq.producer().withDurability(Durability.replicas(1, Duration.ofMillis(300)));
            signal("STOP", replica);
            try {
                assertThatThrownBy(() -> durable.sendAll(batch)).isInstanceOf(NotReplicatedException.class)
                        .hasMessageContaining("acknowledged by 0 of the 1 required replica(s)");
            } finally {
                signal("CONT", replica);
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> "up".equals(replica.info("replication").get("master_link_status")));
            for (int slot = 0; slot < 16; slot++) {
                SlotKeys keys = new KeyLayout("").slot("durable-split", slot);
                redisson.getKeys().delete(keys.store(), keys.body());
            }
        } finally {
            redisson.shutdown();
        }
    }

    /** A test on a redis-server of its own, with no replica, and a client of it; both closed after. */
    private interface OnStandalone {
        void run(RedisServer redis, RedissonClient redisson) throws Exception;
    }

    private static void onStandalone(OnStandalone test) throws Exception {
        try (RedisServer redis = RedisTestServers.newStandalone()) {
            RedissonClient redisson = Fixtures.redisson(redis);
            try {
                test.run(redis, redisson);
            } finally {
                redisson.shutdown();
            }
        }
    }

    private static void signal(String signal, RedisServer server) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(server.pid())).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -%s %s", signal, server.pid()).isZero();
    }

    @Test
    void aDurableSendWithoutEnoughReplicasFailsSayingTheMessageIsOnlyOnTheMaster() throws Exception {
        onStandalone((redis, redisson) -> {
            RmqClient rmq = RmqClient.builder(redisson).topic(Fixtures.topic("durable", TopicType.PRIORITY, 4)).build();
            RmqProducer durable = rmq.producer().withDurability(Durability.replicas(1, Duration.ofMillis(200)));
            assertThatThrownBy(() -> durable.send(OutgoingMessage.priority("durable", "x", 30).withKey("k")))
                    .isInstanceOf(NotReplicatedException.class)
                    .hasMessage("1 message(s) were written to the master but acknowledged by 0 of the 1 required"
                            + " replica(s) within PT0.2S; they may be lost if the master fails before replicating them");
            assertThat(rmq.producer().exists(MessageRef.of("durable", "k"))).isTrue();
            assertThat(rmq.producer().durability()).isEqualTo(Durability.MASTER_ONLY);
        });
    }

    @Test
    void aDurableBatchWithARefusalSaysTheStoredOnesAreOnTheMasterOnly() throws Exception {
        onStandalone((redis, redisson) -> {
            RmqClient rmq = RmqClient.builder(redisson).topic(Fixtures.topic("durable", TopicType.FIXED_TIME, 1))
                    .build();
            RmqProducer durable = rmq.producer().withDurability(Durability.replicas(1, Duration.ofMillis(200)));
            long now = Fixtures.redisTimeMs(redis);
            List<OutgoingMessage> batch = List.of(
                    OutgoingMessage.fixedTime("durable", "a", Instant.ofEpochMilli(now + 60_000)).withKey("a"),
                    OutgoingMessage.fixedTime("durable", "b", Instant.ofEpochMilli(now - 60_000)).withKey("b"));
            BatchSendException failed = catchThrowableOfType(BatchSendException.class, () -> durable.sendAll(batch));

            assertThat(failed.outcomes()).extracting(SendOutcome::status)
                    .containsExactly(SendOutcome.Status.UNKNOWN, SendOutcome.Status.REFUSED);
            assertThat(failed.outcomes().get(0).error()).isInstanceOf(NotReplicatedException.class)
                    .hasMessageStartingWith("1 message(s) were written to the master but acknowledged by 0");
            assertThat(failed.toResend()).containsExactlyElementsOf(batch);
            assertThat(rmq.producer().exists(MessageRef.of("durable", "a"))).isTrue();
            // a single send fails with its own refusal, as a send that waits for no replica does
            assertThatThrownBy(() -> durable.send(batch.get(1))).isInstanceOf(TimeInPastException.class);
        });
    }

    @Test
    void anEmptyDurableBatchIsNoFailure() throws Exception {
        onStandalone((redis, redisson) -> {
            RmqClient rmq = RmqClient.builder(redisson).topic(Fixtures.topic("durable", TopicType.PRIORITY, 1))
                    .build();
            assertThat(rmq.producer().withDurability(Durability.replicas(1, Duration.ofMillis(200)))
                    .sendAll(List.of())).isEmpty();
        });
    }

    /**
     * The loss that durability prevents, made deterministic: the replica is promoted before the writes reach
     * it, as a failover right after a master crash would leave it, and the old master then dies. What the
     * master alone acknowledged is gone; a durable send is either acknowledged and on the replica, or refused.
     */
    @Test
    void aMasterCrashLosesWhatOnlyTheMasterAcknowledgedButNoDurableSend() {
        try (RedisServer master = RedisTestServers.newStandalone();
             RedisServer replica = RedisTestServers.newStandalone(RedisServerOptions.defaults()
                     .withArgs("--replicaof", master.host(), String.valueOf(master.port())))) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> "up".equals(replica.info("replication").get("master_link_status")));
            RedissonClient toMaster = Fixtures.redisson(master);
            RedissonClient toReplica = Fixtures.redisson(replica);
            try {
                TopicDefinition topic = Fixtures.topic("orders", TopicType.PRIORITY, 8);
                RmqProducer plain = RmqClient.builder(toMaster).topic(topic).build().producer();
                RmqProducer durable = plain.withDurability(Durability.replicas(1, Duration.ofMillis(300)));
                List<OutgoingMessage> replicated = batch("replicated", 40);
                List<OutgoingMessage> masterOnly = batch("master-only", 40);

                assertThat(durable.sendAll(replicated)).hasSize(40);
                replica.command("REPLICAOF", "NO", "ONE");
                assertThat(plain.sendAll(masterOnly)).as("acknowledged by the master alone").hasSize(40);
                assertThatThrownBy(() -> durable.sendAll(batch("refused", 40))).isInstanceOf(NotReplicatedException.class);
                master.kill();

                RmqProducer promoted = RmqClient.builder(toReplica).topic(topic).build().producer();
                assertThat(replicated).as("durable sends survive the crash")
                        .allSatisfy(m -> assertThat(promoted.exists(MessageRef.of("orders", m.key()))).isTrue());
                assertThat(masterOnly).as("master-only sends are lost with the master")
                        .noneSatisfy(m -> assertThat(promoted.exists(MessageRef.of("orders", m.key()))).isTrue());
            } finally {
                toMaster.shutdown();
                toReplica.shutdown();
            }
        }
    }

    private static List<OutgoingMessage> batch(String prefix, int count) {
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(OutgoingMessage.priority("orders", prefix + " " + i, 50).withKey(prefix + "-" + i));
        }
        return batch;
    }

    @Test
    void refusesNonsensicalDurability() {
        assertThatIllegalArgumentException().isThrownBy(() -> Durability.replicas(-1, Duration.ofSeconds(1)))
                .withMessage("replicas must be in 0..16, was -1");
        assertThatIllegalArgumentException().isThrownBy(() -> Durability.replicas(1, Duration.ZERO))
                .withMessage("replication timeout must be between 1 ms and 1 min, was PT0S");
    }
}
