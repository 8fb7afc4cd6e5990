package dev.rmq.samples.merchanttasks;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.spring.annotation.RmqListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import java.time.Duration;

/**
 * Runs merchant tasks, highest priority first. Each takes a moment of pretend work, so that a backlog
 * forms and the order is visible in the log, and reports its progress half way. A task no worker knows goes to the
 * dead queue at once.
 */
@Component
public class MerchantTaskWorker {

    private static final Logger log = LoggerFactory.getLogger(MerchantTaskWorker.class);

    private final Duration work;

    public MerchantTaskWorker(@Value("${samples.task-work:300ms}") Duration work) {
        this.work = work;
    }

    @RmqListener(topic = "merchant-tasks")
    public ConsumeResult run(RmqMessage<MerchantTask> message) throws InterruptedException {
        MerchantTask task = message.payload();
        if (!MerchantTask.KNOWN.contains(task.task())) {
            // no retry would help: the dead queue keeps it until someone fixes the worker and requeues it
            log.warn("merchant-tasks: merchant {} asked for '{}', which no worker knows", task.merchantId(),
                    task.task());
            return ConsumeResult.dead("unknown task '" + task.task() + "'; the tasks are " + MerchantTask.KNOWN);
        }
        log.info("merchant-tasks: {} merchant {}: {} (priority {})", task.keyAccount() ? "key-account" : "regular",
                task.merchantId(), task.task(), message.priority().orElseThrow());
        // the pretend work in two halves, with a progress report between them, which the rmq endpoint's in-flight
        // page shows beside the lease deadline while the second half runs
        long half = work.toMillis() / 2;
        Thread.sleep(half);
        message.reportProgress(50, "half of " + task.task() + " done");
        Thread.sleep(work.toMillis() - half);
        return ConsumeResult.success();
    }
}
