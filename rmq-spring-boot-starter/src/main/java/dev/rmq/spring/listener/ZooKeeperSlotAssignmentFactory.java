package dev.rmq.spring.listener;

import dev.rmq.consumer.SlotAssignment;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.topic.TopicDefinition;

import java.util.Objects;

/**
 * Gives each slot to one worker of the whole cluster: every container's workers join the topic's members
 * in ZooKeeper through the application's {@link RmqCoordinator}, which the caller starts and closes.
 */
public final class ZooKeeperSlotAssignmentFactory implements RmqSlotAssignmentFactory {

    private final RmqCoordinator coordinator;

    public ZooKeeperSlotAssignmentFactory(RmqCoordinator coordinator) {
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
    }

    /** The assignment learns its topic and workers when the container starts it; worker ids name the container. */
    @Override
    public SlotAssignment create(TopicDefinition topic, String containerId) {
        return coordinator.newAssignment();
    }

    @Override
    public String mode() {
        return "zookeeper";
    }
}
