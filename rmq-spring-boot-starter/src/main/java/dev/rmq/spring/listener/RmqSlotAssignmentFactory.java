package dev.rmq.spring.listener;

import dev.rmq.consumer.SlotAssignment;
import dev.rmq.topic.TopicDefinition;

/**
 * Decides how the slots of each listener container are handed to its workers. This is the one bean to
 * replace to change the assignment. With a {@code CuratorFramework} the starter uses
 * {@link ZooKeeperSlotAssignmentFactory}, which gives each slot to one worker of the whole cluster;
 * without one, {@link LocalSlotAssignmentFactory}, which lets every instance consume every slot.
 */
@FunctionalInterface
public interface RmqSlotAssignmentFactory {

    /** A new assignment for one container; the container starts and closes it. */
    SlotAssignment create(TopicDefinition topic, String containerId);

    /** A short name of the mode, shown by the actuator endpoint ("local", "zookeeper"). */
    default String mode() {
        return getClass().getSimpleName();
    }
}
