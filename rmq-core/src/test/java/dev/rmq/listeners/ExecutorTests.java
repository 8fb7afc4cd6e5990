package dev.rmq.listeners;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class ExecutorTests extends StandaloneRedisTest {

    private final Set<Thread> made = ConcurrentHashMap.newKeySet();
    private final AtomicInteger count = new AtomicInteger();
    private final ExecutorService pool = Executors.newFixedThreadPool(4, runnable -> {
        Thread thread = new Thread(runnable, "app-pool-" + count.incrementAndGet());
        made.add(thread);
        return thread;
    });
    private RmqClient rmq;

    @AfterEach
    void close() {
        if (rmq != null) {
            rmq.close();
        }
        pool.shutdownNow();
    }

    private void topic() {
        rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(4).build())
                .build();
        for (int i = 0; i < 40; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "job " + i, 100).withKey("m" + i));
        }
    }

    @Test
    void handlersRunOnTheGivenExecutorOnThreadsNamedAfterTheirTopicAndSlot() {
        topic();
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        List<String> names = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class, m -> {
            ranOn.add(Thread.currentThread());
            names.add(m.slot() + " " + Thread.currentThread().getName());
            return ConsumeResult.success();
        }).id("jobs-c").concurrency(2).executor(pool).build();
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> ranOn.size() == 40);
        assertThat(made).containsAll(ranOn);
        assertThat(names).allSatisfy(line -> assertThat(line)
                .matches(slot -> slot.startsWith(line.substring(0, line.indexOf(' ')) + " rmq-jobs-c-"), "worker")
                .endsWith(" jobs_" + line.substring(0, line.indexOf(' '))));

        container.stop(Duration.ofSeconds(5));
        // the pool's threads go back with their own names
        assertThat(made).extracting(Thread::getName).allSatisfy(name -> assertThat(name).startsWith("app-pool-"));
    }

    @Test
    void anExecutorThatRefusesTheWorkersFailsTheStartClearly() {
        topic();
        ExecutorService closed = Executors.newSingleThreadExecutor();
        closed.shutdown();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class, m -> ConsumeResult.success())
                .id("jobs-c").executor(closed).build();
        assertThatThrownBy(container::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the executor of container jobs-c refused worker 0 of 1");
        assertThat(container.isRunning()).isFalse();
    }

    @Test
    void aWorkerItsExecutorNeverStartedDoesNotHoldTheStopUp() {
        topic();
        ExecutorService one = Executors.newFixedThreadPool(1);
        try {
            List<String> seen = new CopyOnWriteArrayList<>();
            RmqConsumerContainer<String> container = rmq.container("jobs", String.class, m -> {
                seen.add(m.key());
                return ConsumeResult.success();
            }).id("jobs-c").concurrency(2).executor(one).build();
            container.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> !seen.isEmpty());

            var report = container.stop(Duration.ofSeconds(2));

            assertThat(report.took()).isLessThan(Duration.ofSeconds(3));
            assertThat(container.heldSlots()).isEmpty();
            // the second worker, queued behind the first, returns at once once the pool gets to it
            await().atMost(Duration.ofSeconds(5)).until(() -> ((java.util.concurrent.ThreadPoolExecutor) one)
                    .getCompletedTaskCount() == 2);
        } finally {
            one.shutdownNow();
        }
    }
}
