package dev.rmq.spring.listener;

import dev.rmq.consumer.LocalSlotAssignment;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Assigns slots without coordination: each container splits all its topic's slots among its own
 * workers. Said once, when the first container starts, because it is the one guarantee this mode gives
 * up; an application that consumes nothing gives up nothing, and hears nothing.
 */
public final class LocalSlotAssignmentFactory implements RmqSlotAssignmentFactory {

    private static final Logger log = LoggerFactory.getLogger(LocalSlotAssignmentFactory.class);

    private final AtomicBoolean told = new AtomicBoolean();

    @Override
    public SlotAssignment create(TopicDefinition topic, String containerId) {
        if (told.compareAndSet(false, true)) {
            log.info("rmq assigns slots locally: every instance of this application consumes every slot of its topics."
                    + " At-least-once delivery holds, but one thread per slot across the cluster does not: two"
                    + " instances may consume messages of the same slot at the same time. Slot ownership across"
                    + " instances needs ZooKeeper: set rmq.zookeeper.connect-string or define a CuratorFramework bean.");
        }
        return new LocalSlotAssignment();
    }

    @Override
    public String mode() {
        return "local";
    }
}
