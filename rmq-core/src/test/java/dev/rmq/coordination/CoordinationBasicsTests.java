package dev.rmq.coordination;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.SlotFencing;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.internal.script.RetryPolicy;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicConflictException;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class CoordinationBasicsTests {

    private static RedisServer redis;
    private static TestingServer zookeeper;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeAll
    static void servers() throws Exception {
        redis = RedisTestServers.newStandalone();
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stopServers() throws Exception {
        ZooKeeperNode.closeAll(zookeeper, redis);
    }

    @BeforeEach
    void empty() throws Exception {
        redis.command("FLUSHALL");
        ZooKeeperNode.deleteRoot(zookeeper.getConnectString());
    }

    @org.junit.jupiter.api.AfterEach
    void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private static CuratorFramework curator() {
        CuratorFramework c = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
        c.start();
        return c;
    }

    /** A Redisson client on the test's Redis, shut down after the test. */
    private RedissonClient redisson() {
        RedissonClient redisson = Fixtures.redisson(redis);
        closing(redisson::shutdown);
        return redisson;
    }

    private <T extends AutoCloseable> T closing(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    private static TopicDefinition topic(TopicType type, int slots) {
        return TopicDefinition.builder("orders", type).slotAmount(slots).leaseTimeout(Duration.ofSeconds(5)).build();
    }

    @Test
    void aConflictingDefinitionFailsStartUpNamingBothDefinitions() {
        CuratorFramework curator = closing(curator());
        RedissonClient redisson = redisson();
        RmqClient first = RmqClient.builder(redisson).topic(topic(TopicType.FIXED_TIME, 16)).build();
        closing(RmqCoordinator.builder(curator, first).origin("billing-service (application.yml)").build()).start();

        RmqClient second = RmqClient.builder(redisson).topic(topic(TopicType.PRIORITY, 16)).build();
        RmqCoordinator conflicting = RmqCoordinator.builder(curator, second).origin("shipping-service").build();
        assertThatThrownBy(conflicting::start).isInstanceOf(TopicConflictException.class)
                .hasMessage("topic 'orders' is defined differently: FIXED_TIME with 16 slots by billing-service"
                        + " (application.yml), but PRIORITY with 16 slots by shipping-service; every application must"
                        + " agree on a topic's type and slotAmount");

        RmqClient fewerSlots = RmqClient.builder(redisson).topic(topic(TopicType.FIXED_TIME, 8)).build();
        assertThatThrownBy(() -> RmqCoordinator.builder(curator, fewerSlots).origin("x").build().start())
                .hasMessageContaining("FIXED_TIME with 8 slots by x");
        RmqClient same = RmqClient.builder(redisson).topic(topic(TopicType.FIXED_TIME, 16)).build();
        closing(RmqCoordinator.builder(curator, same).build()).start();
    }

    @Test
    void refusesASecondStartAndAnUnstartedCurator() {
        CuratorFramework curator = closing(curator());
        RedissonClient redisson = redisson();
        RmqClient rmq = RmqClient.builder(redisson).topic(topic(TopicType.PRIORITY, 4)).build();
        RmqCoordinator coordinator = closing(RmqCoordinator.builder(curator, rmq).build());
        coordinator.start();
        assertThatThrownBy(coordinator::start).hasMessageContaining("was already started");
        CuratorFramework unstarted = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
        assertThatThrownBy(() -> RmqCoordinator.builder(unstarted, rmq).build().start())
                .hasMessage("the CuratorFramework must be started before the RmqCoordinator");
        assertThatThrownBy(() -> RmqCoordinator.builder(curator, rmq).root("rmq/"))
                .hasMessageContaining("ZooKeeper root must be an absolute path");
    }

    @Test
    void workersSplitTheSlotsEvenlyAndEveryMessageIsConsumedByTheSlotsOwner() {
        TopicDefinition topic = topic(TopicType.PRIORITY, 16);
        Map<String, String> consumedBy = new ConcurrentHashMap<>();
        ZooKeeperNode a = closing(new ZooKeeperNode("a", redis.address(), zookeeper.getConnectString(), topic, 2,
                m -> record(consumedBy, "a", m.key(), m.slot()))).start();
        ZooKeeperNode b = closing(new ZooKeeperNode("b", redis.address(), zookeeper.getConnectString(), topic, 2,
                m -> record(consumedBy, "b", m.key(), m.slot()))).start();

        await().atMost(Duration.ofSeconds(15)).until(() -> a.coordinator.owners("orders").size() == 16
                && a.container.ownedSlots().size() == 8 && b.container.ownedSlots().size() == 8);
        Map<Integer, String> plan = a.coordinator.plan("orders");
        assertThat(plan.values().stream().distinct()).hasSize(4);
        assertThat(a.coordinator.owners("orders")).isEqualTo(plan);
        // each slot's fencing token, as the inspector reads it from Redis: one per owner's hold of the slot
        List<String> fences = a.rmq.inspector().counts("orders").slots().stream().map(SlotCounts::fence).toList();
        assertThat(fences).hasSize(16).doesNotContain("").doesNotHaveDuplicates();
        assertThat(a.rmq.inspector().counts("orders").total().fence()).isEmpty();

        for (int i = 0; i < 200; i++) {
            a.rmq.producer().send(OutgoingMessage.priority("orders", "m" + i, 20).withKey("k" + i));
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> consumedBy.size() == 200);
        Set<Integer> aSlots = a.container.ownedSlots();
        consumedBy.forEach((key, who) -> {
            int slot = Integer.parseInt(who.substring(2));
            assertThat(who.charAt(0)).isEqualTo(aSlots.contains(slot) ? 'a' : 'b');
        });
    }

    private static ConsumeResult record(Map<String, String> consumedBy, String node, String key, int slot) {
        consumedBy.put(key, node + ":" + slot);
        return ConsumeResult.success();
    }

    @Test
    void aWorkerWithAStaleTokenCanNeitherPollNorAcknowledge() {
        RedissonClient redisson = redisson();
        RmqClient rmq = RmqClient.builder(redisson).topic(topic(TopicType.PRIORITY, 1)).build();
        rmq.producer().send(OutgoingMessage.priority("orders", "x", 30).withKey("k"));
        redis.command("SET", "rmq:owner{orders_0}", "new-owner/2");
        SlotKeys keys = new KeyLayout("").slot("orders", 0);
        ScriptRunner scripts = new ScriptRunner(redisson);
        RetryPolicy policy = RetryPolicy.of(rmq.topics().require("orders"));

        assertThatThrownBy(() -> Futures.join(scripts.run(keys, new PrepareCall(policy, 10, 30000, "old-owner/1", 1000, 100, false, null))))
                .isInstanceOf(SlotFencedException.class).hasMessage("the slot is owned by another worker");
        AckCall.Ack commit = new AckCall.Ack(AckCall.Op.COMMIT, "k", 1, "");
        assertThatThrownBy(() -> Futures.join(scripts.run(keys, new AckCall(policy, "old-owner/1", "rmq:wake:orders", 0, List.of(commit)))))
                .isInstanceOf(SlotFencedException.class);
        assertThat(redis.command("ZCARD", "rmq:{orders_0}")).isEqualTo(1L);
    }

    @Test
    void takingASlotHoldsOffUntilTheLeasesInFlightAreOverEvenAfterACleanReleaseInBetween() {
        RedissonClient redisson = redisson();
        RmqClient rmq = RmqClient.builder(redisson).topic(topic(TopicType.PRIORITY, 1)).build();
        rmq.producer().send(OutgoingMessage.priority("orders", "x", 30).withKey("k"));
        SlotKeys keys = new KeyLayout("").slot("orders", 0);
        ScriptRunner scripts = new ScriptRunner(redisson);
        SlotFencing fence = rmq.slotFencing();
        TopicDefinition orders = rmq.topics().require("orders");

        // worker a polls under a 10 s lease, then is cut off without releasing
        assertThat(Futures.join(fence.take(orders, 0, "a/1"))).isEqualTo(new SlotFencing.Taken("", Duration.ZERO));
        Futures.join(scripts.run(keys, new PrepareCall(RetryPolicy.of(orders), 10, 10_000, "a/1", 1000, 100, false, null)));
        SlotFencing.Taken byB = Futures.join(fence.take(orders, 0, "b/1"));
        assertThat(byB.previousToken()).isEqualTo("a/1");
        assertThat(byB.holdOff()).isBetween(Duration.ofSeconds(8), Duration.ofMillis(10_001));

        // b gives the slot up cleanly before it ever polled: c must still wait for a's lease
        assertThat(Futures.join(fence.give(orders, 0, "b/1"))).isTrue();
        SlotFencing.Taken byC = Futures.join(fence.take(orders, 0, "c/1"));
        assertThat(byC.previousToken()).isEmpty();
        assertThat(byC.holdOff()).isBetween(Duration.ofSeconds(8), Duration.ofMillis(10_001));
        assertThat(Futures.join(fence.give(orders, 0, "b/1"))).isFalse();
        assertThat(redis.command("GET", "rmq:owner{orders_0}")).isEqualTo("c/1");
    }

    @Test
    void aTakeOfAnEarlierClaimDoesNotFenceOutTheOwnerOfALaterOne() {
        RmqClient rmq = RmqClient.builder(redisson()).topic(topic(TopicType.PRIORITY, 1)).build();
        SlotFencing fence = rmq.slotFencing();
        TopicDefinition orders = rmq.topics().require("orders");

        assertThat(Futures.join(fence.take(orders, 0, "b/1#0000000000000020")).superseded()).isFalse();
        // a's claim came first, but its take arrives late
        SlotFencing.Taken late = Futures.join(fence.take(orders, 0, "a/1#000000000000001f"));
        assertThat(late.superseded()).isTrue();
        assertThat(late.previousToken()).isEqualTo("b/1#0000000000000020");
        assertThat(redis.command("GET", "rmq:owner{orders_0}")).isEqualTo("b/1#0000000000000020");

        // a later claim takes it, and so does a token without an order (a slot assignment of its own)
        assertThat(Futures.join(fence.take(orders, 0, "c/1#000000000000002a")).previousToken())
                .isEqualTo("b/1#0000000000000020");
        assertThat(Futures.join(fence.take(orders, 0, "e/1#0000000000000029")).superseded()).as("9 before a").isTrue();
        assertThat(Futures.join(fence.take(orders, 0, "f/1#0000000100000000")).superseded()).isFalse();
        assertThat(Futures.join(fence.take(orders, 0, "g/1#00000000ffffffff")).superseded()).as("by its high half")
                .isTrue();
        assertThat(Futures.join(fence.take(orders, 0, "d/1")).superseded()).isFalse();
        assertThat(redis.command("GET", "rmq:owner{orders_0}")).isEqualTo("d/1");
    }

    @Test
    void anAtMostOnceBatchHoldsOffANewOwnerForItsLeaseThoughItLeftRedis() {
        RedissonClient redisson = redisson();
        TopicDefinition ticks = TopicDefinition.builder("orders", TopicType.PRIORITY).slotAmount(1)
                .leaseTimeout(Duration.ofSeconds(10)).delivery(DeliveryGuarantee.AT_MOST_ONCE).build();
        RmqClient rmq = RmqClient.builder(redisson).topic(ticks).build();
        rmq.producer().send(OutgoingMessage.priority("orders", "x", 30).withKey("k"));
        SlotKeys keys = new KeyLayout("").slot("orders", 0);
        ScriptRunner scripts = new ScriptRunner(redisson);
        SlotFencing fence = rmq.slotFencing();

        // an empty poll leaves no hold: nothing can be running
        assertThat(Futures.join(fence.take(ticks, 0, "a/1"))).isEqualTo(new SlotFencing.Taken("", Duration.ZERO));
        // worker a takes the message (it leaves Redis), then is cut off while its handler may still run
        Futures.join(scripts.run(keys, new PrepareCall(RetryPolicy.of(ticks), 10, 10_000, "a/1", 1000, 100, true, null)));
        assertThat(redis.command("ZCARD", keys.prepare())).isEqualTo(0L);
        assertThat(redis.command("HLEN", keys.body())).isEqualTo(0L);
        SlotFencing.Taken byB = Futures.join(fence.take(ticks, 0, "b/1"));
        assertThat(byB.previousToken()).isEqualTo("a/1");
        assertThat(byB.holdOff()).isBetween(Duration.ofSeconds(8), Duration.ofMillis(10_001));
        // the hold expires by itself with the lease
        assertThat((Long) redis.command("PTTL", keys.hold())).isBetween(8_000L, 10_000L);
        redis.command("DEL", keys.hold());
        assertThat(Futures.join(fence.take(ticks, 0, "c/1")).holdOff()).isEqualTo(Duration.ZERO);
    }

    @Test
    void anAtMostOnceWorkerWhoseSlotWasTakenWhileAHandlerRanAsksRedisBeforeItsNextHandler() {
        TopicDefinition ticks = TopicDefinition.builder("orders", TopicType.PRIORITY).slotAmount(1)
                .leaseTimeout(Duration.ofSeconds(2)).delivery(DeliveryGuarantee.AT_MOST_ONCE).build();
        // sent before the node starts, so that its first poll takes all three in one batch, k0 first
        RmqClient sender = RmqClient.builder(redisson()).topic(ticks).build();
        for (int i = 0; i < 3; i++) {
            sender.producer().send(OutgoingMessage.priority("orders", "m" + i, 30 - i).withKey("k" + i));
        }
        // each handler's key, with the slot's fencing token in Redis as it started
        Map<String, String> ownerAtStart = new ConcurrentHashMap<>();
        closing(new ZooKeeperNode("a", redis.address(), zookeeper.getConnectString(), ticks, 1, m -> {
            ownerAtStart.put(m.key(), String.valueOf(redis.command("GET", "rmq:owner{orders_0}")));
            if (m.key().equals("k0")) {
                // another owner takes the slot while this handler runs on, past half the lease (when the worker
                // ends what it finished) and past the fence's 1 s recheck: the rest of the batch must not start
                // until Redis has said whose the slot is
                redis.command("SET", "rmq:owner{orders_0}", "intruder/9");
                Thread.sleep(1_500); // the handler's work, not a wait
            }
            return ConsumeResult.success();
        })).start();

        // the worker got past k0: its next handler ran, or the rest of the batch went back to waiting
        await().atMost(Duration.ofSeconds(20)).until(() -> ownerAtStart.size() > 1
                || (ownerAtStart.containsKey("k0") && Long.valueOf(2).equals(redis.command("ZCARD", "rmq:{orders_0}"))));
        ownerAtStart.forEach((key, owner) -> {
            if (!key.equals("k0")) {
                assertThat(owner).as("the fencing token as %s started", key).isNotEqualTo("intruder/9");
            }
        });
    }

    @Test
    void digestAclsKeepOtherClientsOutOfRmqsZnodes() throws Exception {
        CuratorFramework authorized = closing(CuratorFrameworkFactory.builder().connectString(zookeeper.getConnectString())
                .retryPolicy(new RetryOneTime(100)).authorization("digest", "rmq:secret".getBytes(StandardCharsets.UTF_8))
                .build());
        authorized.start();
        RedissonClient redisson = redisson();
        RmqClient rmq = RmqClient.builder(redisson).topic(topic(TopicType.PRIORITY, 4)).build();
        List<ACL> acl = List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest("rmq:secret"))));
        closing(RmqCoordinator.builder(authorized, rmq).root("/secured").acl(acl).build()).start();

        assertThat(authorized.getData().forPath("/secured/topics/orders")).isNotEmpty();
        CuratorFramework stranger = closing(curator());
        assertThatThrownBy(() -> stranger.getData().forPath("/secured/topics/orders"))
                .isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> stranger.setData().forPath("/secured/topics/orders", new byte[0]))
                .isInstanceOf(KeeperException.NoAuthException.class);
    }
}
