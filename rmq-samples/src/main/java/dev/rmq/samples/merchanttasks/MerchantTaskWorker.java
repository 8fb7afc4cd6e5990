package dev.rmq.samples.merchanttasks;

import dev.rmq.spring.annotation.RmqHeaders;
import dev.rmq.spring.annotation.RmqListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;

import java.time.Duration;

/**
 * Runs merchant tasks, highest priority first. Each takes a moment of pretend work, so that a backlog
 * forms and the order is visible in the log.
 */
@Component
public class MerchantTaskWorker {

    private static final Logger log = LoggerFactory.getLogger(MerchantTaskWorker.class);

    private final Duration work;

    public MerchantTaskWorker(@Value("${samples.task-work:300ms}") Duration work) {
        this.work = work;
    }

    @RmqListener(topic = "merchant-tasks")
    public void run(MerchantTask task, @Header(RmqHeaders.PRIORITY) long priority) throws InterruptedException {
        log.info("merchant-tasks: {} merchant {}: {} (priority {})", task.keyAccount() ? "key-account" : "regular",
                task.merchantId(), task.task(), priority);
        Thread.sleep(work.toMillis());
    }
}
