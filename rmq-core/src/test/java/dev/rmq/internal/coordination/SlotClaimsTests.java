package dev.rmq.internal.coordination;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.SlotFencing;
import dev.rmq.logs.CapturedLogs;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A slot is claimed in ZooKeeper (its ephemeral owner znode) and then in Redis (its fencing token). When the session
 * ends between the two, the znode goes with it while the claim goes on in a new session: the claim must not stand,
 * or its worker would poll a slot that any other instance may claim, and be fenced out in the middle of a batch; and
 * its fence, should it arrive after another instance claimed the slot, must not fence that instance out.
 */
class SlotClaimsTests extends StandaloneRedisTest {

    private static final TopicDefinition TOPIC = TopicDefinition.builder("claims", TopicType.PRIORITY).slotAmount(2)
            .build();

    private TestingServer zookeeper;
    private CuratorFramework curator;
    private RmqClient rmq;

    @BeforeEach
    void start() throws Exception {
        zookeeper = new TestingServer();
        curator = CuratorFrameworkFactory.builder().connectString(zookeeper.getConnectString()).sessionTimeoutMs(4000)
                .connectionTimeoutMs(2000).retryPolicy(new ExponentialBackoffRetry(100, 5, 1000)).build();
        curator.start();
        curator.blockUntilConnected();
        rmq = RmqClient.builder(redisson).topic(TOPIC).build();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            rmq.close();
            curator.close();
        } finally {
            zookeeper.close();
        }
    }

    @Test
    void aClaimWhoseSessionEndedBeforeItsFenceWasWrittenDoesNotStand() throws Exception {
        SlotClaims claims = new SlotClaims(curator, membership(), new ExpiringFirst(rmq.slotFencing()));
        long before = claims.currentSession();

        Optional<SlotClaims.Claimed> claimed = claims.claim(TOPIC, 0, "i1-w0/first");

        assertThat(claimed).as("claimed in a session that ended meanwhile").isEmpty();
        assertThat(claims.currentSession()).isNotEqualTo(before).isNotZero();
        Stat left = curator.checkExists().forPath(ownerPath(0));
        if (left != null) {
            // ZooKeeper ends a session whose client went away once its timeout is over: until then its znodes stay
            assertThat(left.getEphemeralOwner()).as("the znode is the ended session's").isEqualTo(before);
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(redis.command("GET", "rmq:owner{claims_0}"))
                .as("the fence it wrote, given back (cleared)").isEqualTo(""));

        // claimed again once the ended session's znode is gone
        AtomicReference<Optional<SlotClaims.Claimed>> claimedAgain = new AtomicReference<>(Optional.empty());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            claimedAgain.set(claims.claim(TOPIC, 0, "i1-w0/second"));
            return claimedAgain.get().isPresent();
        });
        Optional<SlotClaims.Claimed> again = claimedAgain.get();
        assertThat(again).isPresent();
        assertThat(again.get().session()).isEqualTo(claims.currentSession());
        Stat owner = curator.checkExists().forPath(ownerPath(0));
        assertThat(owner).isNotNull();
        assertThat(owner.getEphemeralOwner()).isEqualTo(again.get().session());
        assertThat(redis.command("GET", "rmq:owner{claims_0}")).isEqualTo(again.get().fence());
    }

    @Test
    void aClaimWhoseFenceArrivesAfterALaterClaimsLeavesTheSlotToIt() throws Exception {
        try (CuratorFramework other = CuratorFrameworkFactory.builder().connectString(zookeeper.getConnectString())
                .sessionTimeoutMs(4000).connectionTimeoutMs(2000).retryPolicy(new ExponentialBackoffRetry(100, 5, 1000))
                .build()) {
            other.start();
            other.blockUntilConnected();
            SlotClaims second = new SlotClaims(other, new Membership(new ZkPaths("/rmq"), null, "i2", "test", null),
                    rmq.slotFencing());
            AtomicReference<Optional<SlotClaims.Claimed>> secondClaim = new AtomicReference<>(Optional.empty());
            // the first claim's session ends, and the second instance claims the slot, before the first one's take
            SlotFencing lateFirst = new ExpiringFirst(rmq.slotFencing(), () -> await().atMost(Duration.ofSeconds(20))
                    .until(() -> {
                        secondClaim.set(second.claim(TOPIC, 0, "i2-w0/later"));
                        return secondClaim.get().isPresent();
                    }));
            SlotClaims first = new SlotClaims(curator, membership(), lateFirst);

            Optional<SlotClaims.Claimed> claimed = first.claim(TOPIC, 0, "i1-w0/earlier");

            assertThat(claimed).isEmpty();
            String later = secondClaim.get().orElseThrow().fence();
            assertThat(later).startsWith("i2-w0/later#");
            assertThat(redis.command("GET", "rmq:owner{claims_0}")).as("the later owner not fenced out")
                    .isEqualTo(later);
            assertThat(new String(other.getData().forPath(ownerPath(0)), java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo("i2-w0/later");
        }
    }

    @Test
    void aTokenOrderedAfterAClaimThatHoldsTheZnodeIsClearedAndTheSlotTaken() throws Exception {
        // left by a ZooKeeper ensemble whose zxids ran higher than this one's
        redis.command("SET", "rmq:owner{claims_0}", "gone/1#7fffffffffffff00");
        SlotClaims claims = new SlotClaims(curator, membership(), rmq.slotFencing());

        Optional<SlotClaims.Claimed> claimed = claims.claim(TOPIC, 0, "i1-w0/now");

        assertThat(claimed).isPresent();
        assertThat(redis.command("GET", "rmq:owner{claims_0}")).isEqualTo(claimed.get().fence());
        assertThat(curator.checkExists().forPath(ownerPath(0)).getCzxid())
                .isEqualTo(Long.parseLong(claimed.get().fence().substring("i1-w0/now#".length()), 16));
    }

    @Test
    void aClaimInALiveSessionStandsWithThatSession() throws Exception {
        SlotClaims claims = new SlotClaims(curator, membership(), rmq.slotFencing());

        Optional<SlotClaims.Claimed> claimed = claims.claim(TOPIC, 1, "i1-w0/only");

        assertThat(claimed).isPresent();
        assertThat(claimed.get().session()).isEqualTo(curator.getZookeeperClient().getZooKeeper().getSessionId());
        assertThat(claimed.get().taken().previousToken()).isEmpty();
        assertThat(claimed.get().fence()).as("the token, then the claim's order").matches("i1-w0/only#[0-9a-f]{16}");
        assertThat(redis.command("GET", "rmq:owner{claims_1}")).isEqualTo(claimed.get().fence());
    }

    @Test
    void aMemberLeftByASessionThatEndedIsMadeAgainInTheNewOne() throws Exception {
        SlotClaims claims = new SlotClaims(curator, membership(), rmq.slotFencing());
        String member = new ZkPaths("/rmq").member(TOPIC.name(), "i1-w0");
        claims.ensureMember(member);
        long before = claims.currentSession();
        assertThat(curator.checkExists().forPath(member).getEphemeralOwner()).isEqualTo(before);

        new ExpiringFirst(rmq.slotFencing()).expireSessionAndWaitForTheNext();
        claims.ensureMember(member);

        Stat now = curator.checkExists().forPath(member);
        assertThat(now).isNotNull();
        assertThat(now.getEphemeralOwner()).as("made again in the new session").isEqualTo(claims.currentSession())
                .isNotEqualTo(before);
    }

    @Test
    void aMemberAnotherProcessHoldsIsLeftAloneUntilItGoes() throws Exception {
        String member = new ZkPaths("/rmq").member(TOPIC.name(), "i1-w0");
        CuratorFramework other = secondClient();
        try {
            long otherSession = other.getZookeeperClient().getZooKeeper().getSessionId();
            SlotClaims theirs = new SlotClaims(other, membership(), rmq.slotFencing());
            SlotClaims ours = new SlotClaims(curator, membership(), rmq.slotFencing());
            theirs.ensureMember(member);
            String ownMember = new ZkPaths("/rmq").member(TOPIC.name(), "i1-w1");
            ours.ensureMember(ownMember);

            try (CapturedLogs logs = new CapturedLogs(SlotClaims.class.getName())) {
                ours.ensureMember(member);
                ours.ensureMember(member);
                ours.deleteMemberInBackground(member);
                // ZooKeeper answers a session's calls in order: once the own member is deleted, the other one's
                // deletion was decided
                ours.deleteMemberInBackground(ownMember);
                await().atMost(Duration.ofSeconds(10)).until(() -> curator.checkExists().forPath(ownMember) == null);

                Stat stat = curator.checkExists().forPath(member);
                assertThat(stat).as("the other process's member, not deleted").isNotNull();
                assertThat(stat.getEphemeralOwner()).as("nor replaced").isEqualTo(otherSession);
                assertThat(logs.lines()).as("warned of once").hasSize(1).first().asString()
                        .startsWith("WARN rmq coordination i1: member znode " + member + " is held by ZooKeeper"
                                + " session 0x" + Long.toHexString(otherSession) + " of another process (origin=test"
                                + " claimant=")
                        .contains("two running processes use instanceId 'i1'");
            }

            other.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> curator.checkExists().forPath(member) == null);
            ours.ensureMember(member);
            Stat stat = curator.checkExists().forPath(member);
            assertThat(stat).isNotNull();
            assertThat(stat.getEphemeralOwner()).as("ours once the other went").isEqualTo(ours.currentSession());
        } finally {
            other.close();
        }
    }

    @Test
    void aMemberThisCoordinatorMadeInAnotherSessionIsReplacedAndDeletedOnTheWayOut() throws Exception {
        String member = new ZkPaths("/rmq").member(TOPIC.name(), "i1-w0");
        Membership membership = membership();
        CuratorFramework earlier = secondClient();
        try {
            new SlotClaims(earlier, membership, rmq.slotFencing()).ensureMember(member);
            SlotClaims claims = new SlotClaims(curator, membership, rmq.slotFencing());

            claims.ensureMember(member);
            Stat stat = curator.checkExists().forPath(member);
            assertThat(stat).isNotNull();
            assertThat(stat.getEphemeralOwner()).as("made again in this session").isEqualTo(claims.currentSession());

            new SlotClaims(earlier, membership, rmq.slotFencing()).ensureMember(member);
            assertThat(curator.checkExists().forPath(member).getEphemeralOwner())
                    .as("the earlier session's again").isNotEqualTo(claims.currentSession());
            claims.deleteMemberInBackground(member);
            await().atMost(Duration.ofSeconds(10)).until(() -> curator.checkExists().forPath(member) == null);
        } finally {
            earlier.close();
        }
    }

    /** A client of its own ZooKeeper session: another process, or an earlier session of this one. */
    private CuratorFramework secondClient() throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(zookeeper.getConnectString())
                .sessionTimeoutMs(4000).retryPolicy(new ExponentialBackoffRetry(100, 5, 1000)).build();
        client.start();
        client.blockUntilConnected();
        return client;
    }

    private static Membership membership() {
        return new Membership(new ZkPaths("/rmq"), null, "i1", "test", null);
    }

    private static String ownerPath(int slot) {
        return new ZkPaths("/rmq").owner(TOPIC.name(), slot);
    }

    /**
     * The real fencing, but its first take waits until the client's session has expired and a new one has begun:
     * the moment of a claim that a session expiry cuts in two.
     */
    private final class ExpiringFirst implements SlotFencing {

        private final SlotFencing redisFencing;
        /** What happens after the session ended and before the first take goes on. */
        private final Runnable meanwhile;
        private boolean expired;

        ExpiringFirst(SlotFencing redisFencing) {
            this(redisFencing, () -> { });
        }

        ExpiringFirst(SlotFencing redisFencing, Runnable meanwhile) {
            this.redisFencing = redisFencing;
            this.meanwhile = meanwhile;
        }

        @Override
        public CompletionStage<Taken> take(TopicDefinition topic, int slot, String token) {
            if (!expired) {
                expired = true;
                expireSessionAndWaitForTheNext();
                meanwhile.run();
            }
            return redisFencing.take(topic, slot, token);
        }

        @Override
        public CompletionStage<Boolean> give(TopicDefinition topic, int slot, String token) {
            return redisFencing.give(topic, slot, token);
        }

        private void expireSessionAndWaitForTheNext() {
            try {
                long old = curator.getZookeeperClient().getZooKeeper().getSessionId();
                curator.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    long now = curator.getZookeeperClient().getZooKeeper().getSessionId();
                    return now != 0 && now != old && curator.getZookeeperClient().isConnected();
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
