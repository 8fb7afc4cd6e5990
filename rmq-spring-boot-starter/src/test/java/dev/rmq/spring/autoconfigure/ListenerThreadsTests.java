package dev.rmq.spring.autoconfigure;

import dev.rmq.embedded.RedisServer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.listener.DefaultRmqListenerContainerFactory;
import dev.rmq.spring.listener.RmqListenerContainerFactory;
import dev.rmq.testsupport.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.system.JavaVersion;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.task.VirtualThreadTaskExecutor;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What threads run the listeners: the application's executor, virtual threads where Java has them, or rmq's own. */
@ExtendWith({RedisExtension.class, OutputCaptureExtension.class})
class ListenerThreadsTests {

    private static final String VIRTUAL_ON_17 = "spring.threads.virtual.enabled=true asks for virtual threads, which"
            + " need Java 21 or later; on Java 17 rmq's listeners run on platform threads, one per worker";

    private final ApplicationContextRunner contextRunner;

    ListenerThreadsTests(RedisServer redis) {
        contextRunner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class))
                .withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.orders.type=PRIORITY",
                        "rmq.topics.orders.slot-amount=2", "rmq.listener.idle-poll=100ms");
    }

    private static Object executorOf(org.springframework.context.ApplicationContext context) {
        return context.getBean(RmqListenerContainerFactory.DEFAULT_BEAN_NAME, DefaultRmqListenerContainerFactory.class)
                .getExecutor();
    }

    @Test
    void listenersRunOnTheApplicationsExecutorBean() {
        Set<Thread> made = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "app-listener-pool");
            made.add(thread);
            return thread;
        });
        try {
            contextRunner.withBean(ListenerThreads.EXECUTOR_BEAN, ExecutorService.class, () -> pool)
                    .withBean(Listener.class)
                    .withPropertyValues("spring.threads.virtual.enabled=true")
                    .run(context -> {
                        assertThat(executorOf(context)).isSameAs(pool);
                        context.getBean(RmqProducer.class).send(OutgoingMessage.priority("orders", "o-1", 50));
                        Listener listener = context.getBean(Listener.class);
                        await().atMost(Duration.ofSeconds(10)).until(() -> !listener.threads.isEmpty());
                        assertThat(made).contains(listener.threads.get(0));
                        assertThat(listener.names.get(0)).startsWith("rmq-orders#0-0 orders_");
                    });
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void byDefaultEachWorkerHasAPlatformThreadOfItsOwn(CapturedOutput output) {
        contextRunner.run(context -> assertThat(executorOf(context)).isNull());
        assertThat(output).doesNotContain("asks for virtual threads");
    }

    @Test
    void virtualThreadsFollowSpringBootsSettingWhereJavaHasThem(CapturedOutput output) {
        contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
            if (JavaVersion.getJavaVersion().isEqualOrNewerThan(JavaVersion.TWENTY_ONE)) {
                assertThat(executorOf(context)).isInstanceOf(VirtualThreadTaskExecutor.class);
            } else {
                assertThat(executorOf(context)).isNull();
                assertThat(output.getOut().split(VIRTUAL_ON_17, -1)).hasSize(2);
            }
        });
    }

    @Test
    void platformThreadsCanBeChosenWhateverSpringBootSays(CapturedOutput output) {
        contextRunner.withPropertyValues("spring.threads.virtual.enabled=true", "rmq.listener.threads=platform")
                .run(context -> assertThat(executorOf(context)).isNull());
        assertThat(output).doesNotContain("asks for virtual threads");
    }

    static class Listener {
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final List<String> names = new CopyOnWriteArrayList<>();

        @RmqListener(topic = "orders")
        void on(String order) {
            threads.add(Thread.currentThread());
            names.add(Thread.currentThread().getName());
        }
    }
}
