package dev.rmq.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.system.JavaVersion;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;

import java.util.concurrent.Executor;

/**
 * Chooses what runs the listener containers' workers: the application's {@value #EXECUTOR_BEAN} bean; else virtual
 * threads when {@code rmq.listener.threads} asks for them, or leaves it to {@code spring.threads.virtual.enabled}, as
 * Spring Boot does for Kafka and Rabbit listeners; else a platform thread per worker (null).
 */
final class ListenerThreads {

    /** The name of an {@link Executor} bean that runs the listeners, whatever {@code rmq.listener.threads} says. */
    static final String EXECUTOR_BEAN = "rmqListenerExecutor";

    private static final Logger log = LoggerFactory.getLogger(ListenerThreads.class);

    private ListenerThreads() {
    }

    static @Nullable Executor choose(RmqProperties.Listener.Threads threads, Environment environment, BeanFactory beans) {
        if (beans.containsBean(EXECUTOR_BEAN)) {
            return beans.getBean(EXECUTOR_BEAN, Executor.class);
        }
        boolean virtual = threads == RmqProperties.Listener.Threads.VIRTUAL
                || (threads == RmqProperties.Listener.Threads.AUTO
                && environment.getProperty("spring.threads.virtual.enabled", Boolean.class, false));
        if (!virtual) {
            return null;
        }
        if (!JavaVersion.getJavaVersion().isEqualOrNewerThan(JavaVersion.TWENTY_ONE)) {
            log.info("{} asks for virtual threads, which need Java 21 or later; on Java {} rmq's listeners run on"
                    + " platform threads, one per worker", threads == RmqProperties.Listener.Threads.VIRTUAL
                    ? "rmq.listener.threads=virtual" : "spring.threads.virtual.enabled=true",
                    Runtime.version().feature());
            return null;
        }
        log.info("rmq listeners run on virtual threads ({})", threads == RmqProperties.Listener.Threads.VIRTUAL
                ? "rmq.listener.threads=virtual" : "spring.threads.virtual.enabled=true");
        return new VirtualThreadTaskExecutor("rmq-listener-");
    }
}
