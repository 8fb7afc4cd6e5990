package dev.rmq.spring;

import dev.rmq.RmqClient;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqCoordinationAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqEndpointAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqZooKeeperAutoConfiguration;
import dev.rmq.spring.actuate.RmqEndpoint;
import dev.rmq.spring.actuate.RmqEndpointViews;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications on one ZooKeeper and one Redis, as the starter configures them: each slot is consumed
 * by exactly one worker of the two, the rmq endpoint of either shows the whole cluster, and an application
 * that stops finishes its messages and hands its slots over before its coordinator and Curator close.
 */
@ExtendWith(RedisAndZooKeeper.class)
class RmqCoordinationTests {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Set<Integer> EIGHT_SLOTS = IntStream.range(0, 8).boxed().collect(Collectors.toSet());

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class, RmqRedisAutoConfiguration.class,
                    RmqZooKeeperAutoConfiguration.class, RmqCoordinationAutoConfiguration.class,
                    RmqAutoConfiguration.class, RmqEndpointAutoConfiguration.class))
            .withPropertyValues("rmq.redis.address=" + RedisAndZooKeeper.redis().address(),
                    "rmq.zookeeper.connect-string=" + RedisAndZooKeeper.zookeeper().getConnectString(),
                    "rmq.listener.idle-poll=200ms", "management.endpoints.web.exposure.include=rmq");

    @Test
    void twoApplicationsSplitTheSlotsAndTheOneLeftTakesThemAll() {
        ApplicationContextRunner jobs = contextRunner.withPropertyValues("rmq.topics.jobs.type=PRIORITY",
                "rmq.topics.jobs.slot-amount=8", "rmq.topics.jobs.concurrency=2").withBean(JobListener.class);
        jobs.withPropertyValues("spring.application.name=first").run(first -> {
            jobs.withPropertyValues("spring.application.name=second").run(second -> {
                await().atMost(WAIT).untilAsserted(() -> {
                    List<Set<Integer>> workers = slotsOfWorkers(List.of(first, second));
                    assertThat(workers).as("two workers each").hasSize(4);
                    assertThat(workers).as("balanced").allSatisfy(slots -> assertThat(slots).hasSize(2));
                    assertThat(workers.stream().flatMap(Set::stream).toList())
                            .as("every slot, each with exactly one worker").containsExactlyInAnyOrderElementsOf(EIGHT_SLOTS);
                });

                RmqProducer producer = first.getBean(RmqProducer.class);
                for (int i = 0; i < 40; i++) {
                    producer.send(OutgoingMessage.priority("jobs", "job-" + i, 100).withKey("job-" + i));
                }
                JobListener one = first.getBean(JobListener.class);
                JobListener two = second.getBean(JobListener.class);
                await().atMost(WAIT).until(() -> one.handled.size() + two.handled.size() == 40);
                assertThat(one.handled.keySet()).doesNotContainAnyElementsOf(two.handled.keySet());
                assertThat(one.handled.values()).containsOnly(1);
                assertThat(two.handled.values()).containsOnly(1);
                assertThat(one.handled).isNotEmpty();
                assertThat(two.handled).isNotEmpty();

                for (AssertableApplicationContext either : List.of(first, second)) {
                    RmqEndpoint endpoint = either.getBean(RmqEndpoint.class);
                    assertThat(endpoint.overview().assignment()).isEqualTo("zookeeper");
                    List<RmqEndpointViews.SlotDetail> slots = endpoint.topic("jobs", null, null, null, null, null).slots();
                    assertThat(slots).hasSize(8)
                            .allSatisfy(slot -> assertThat(slot.owners()).singleElement().isEqualTo(slot.planned()));
                    Map<String, Long> slotsPerOwner = slots.stream()
                            .collect(Collectors.groupingBy(slot -> slot.owners().get(0), Collectors.counting()));
                    assertThat(slotsPerOwner).as("the four workers of both applications").hasSize(4);
                    assertThat(slotsPerOwner.values()).containsOnly(2L);
                }
            });

            await().atMost(WAIT).untilAsserted(() -> {
                List<Set<Integer>> workers = slotsOfWorkers(List.of(first));
                assertThat(workers).hasSize(2).allSatisfy(slots -> assertThat(slots).hasSize(4));
                assertThat(workers.stream().flatMap(Set::stream).toList()).containsExactlyInAnyOrderElementsOf(EIGHT_SLOTS);
                assertThat(first.getBean(RmqCoordinator.class).owners("jobs")).hasSize(8)
                        .extracting(Map::values).satisfies(owners -> assertThat(Set.copyOf(owners)).hasSize(2));
            });
        });
    }

    @Test
    void stoppingFinishesTheMessageInFlightBeforeTheCoordinatorAndCuratorClose() throws Exception {
        ApplicationContextRunner slow = contextRunner.withPropertyValues("rmq.topics.slow.type=PRIORITY",
                "rmq.topics.slow.slot-amount=1", "blocking.topic=slow").withBean(BlockingListener.class);
        slow.run(context -> {
            BlockingListener listener = context.getBean(BlockingListener.class);
            RmqCoordinator coordinator = context.getBean(RmqCoordinator.class);
            CuratorFramework curator = context.getBean(CuratorFramework.class);
            RmqClient client = context.getBean(RmqClient.class);
            SlotKeys keys = new KeyLayout("").slot("slow", 0);
            client.producer().send(OutgoingMessage.priority("slow", "work", 100));
            assertThat(listener.started.await(10, TimeUnit.SECONDS)).isTrue();
            String worker = coordinator.owners("slow").get(0);
            assertThat(context.getSourceApplicationContext().getBeanFactory().getDependentBeans("rmqCuratorFramework"))
                    .as("so the coordinator is destroyed first").contains("rmqCoordinator");

            CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !closing.isDone());
            assertThat(coordinator.owners("slow")).as("the slot is held while its message is handled")
                    .containsEntry(0, worker);
            assertThat(curator.getState()).isEqualTo(CuratorFrameworkState.STARTED);

            listener.release.countDown();
            closing.get(20, TimeUnit.SECONDS);

            assertThat(listener.finished).isTrue();
            assertThat(RedisAndZooKeeper.redis().command("EXISTS", keys.store(), keys.body(), keys.prepare(),
                    keys.inflight(), keys.dead())).as("committed").isEqualTo(0L);
            assertThat(curator.getState()).isEqualTo(CuratorFrameworkState.STOPPED);
        });
        // the slot was handed back, not left to expire with the session
        try (CuratorFramework observer = CuratorFrameworkFactory.newClient(
                RedisAndZooKeeper.zookeeper().getConnectString(), new RetryOneTime(100))) {
            observer.start();
            assertThat(children(observer, "/rmq/topics/slow/owners")).isEmpty();
            assertThat(children(observer, "/rmq/topics/slow/members")).isEmpty();
        }
    }

    /** The slots each worker of these applications polls now, as the workers themselves see it. */
    private static List<Set<Integer>> slotsOfWorkers(List<AssertableApplicationContext> applications) {
        List<Set<Integer>> workers = new ArrayList<>();
        for (AssertableApplicationContext application : applications) {
            for (RmqConsumerContainer<?> container : application.getBean(RmqListenerEndpointRegistry.class)
                    .getListenerContainers("jobs")) {
                for (SlotOwner worker : container.owners()) {
                    workers.add(Set.copyOf(worker.ownedSlots()));
                }
            }
        }
        return workers;
    }

    private static List<String> children(CuratorFramework client, String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of(); // a container znode that ZooKeeper removed once it was empty
        }
    }

    static class JobListener {
        final Map<String, Integer> handled = new ConcurrentHashMap<>();

        @RmqListener(topic = "jobs")
        void handle(String job) {
            handled.merge(job, 1, Integer::sum);
        }
    }
}
