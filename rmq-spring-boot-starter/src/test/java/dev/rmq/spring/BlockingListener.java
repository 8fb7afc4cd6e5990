package dev.rmq.spring;

import dev.rmq.spring.annotation.RmqListener;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A listener that holds its message until the test releases it, so a shutdown or a handover finds a
 * message in flight. Its topic is {@code blocking.topic}, {@code jobs} by default.
 */
class BlockingListener {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean finished;

    @RmqListener(topic = "${blocking.topic:jobs}")
    void work(String payload) throws InterruptedException {
        started.countDown();
        if (!release.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released");
        }
        finished = true;
    }
}
