package dev.rmq.spring.actuate;

import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which workers own a topic's slots: in the whole cluster, as ZooKeeper records them, when a coordinator assigns
 * the slots; else this instance's listener containers' workers.
 */
public final class SlotOwners {

    private final @Nullable RmqListenerEndpointRegistry registry;
    private final @Nullable RmqCoordinator coordinator;

    public SlotOwners(@Nullable RmqListenerEndpointRegistry registry, @Nullable RmqCoordinator coordinator) {
        this.registry = registry;
        this.coordinator = coordinator;
    }

    /** Whether the owners are the cluster's, as ZooKeeper records them. */
    public boolean coordinated() {
        return coordinator != null;
    }

    /** This instance's listener containers of the topic. */
    public List<RmqConsumerContainer<?>> containers(String topic) {
        return registry == null ? List.of() : registry.getListenerContainers(topic);
    }

    /** Slot to the workers that own it. */
    public Map<Integer, List<String>> of(String topic) {
        Map<Integer, List<String>> owners = new TreeMap<>();
        if (coordinator != null) {
            coordinator.owners(topic).forEach((slot, worker) -> owners.put(slot, List.of(worker)));
            return owners;
        }
        for (RmqConsumerContainer<?> container : containers(topic)) {
            for (SlotOwner owner : container.owners()) {
                for (int slot : owner.ownedSlots()) {
                    owners.computeIfAbsent(slot, s -> new ArrayList<>()).add(owner.workerId());
                }
            }
        }
        return owners;
    }

    /** The workers that own one slot, read alone. */
    public List<String> of(String topic, int slot) {
        if (coordinator != null) {
            return coordinator.owner(topic, slot).map(List::of).orElse(List.of());
        }
        List<String> owners = new ArrayList<>();
        for (RmqConsumerContainer<?> container : containers(topic)) {
            for (SlotOwner owner : container.owners()) {
                if (owner.ownedSlots().contains(slot)) {
                    owners.add(owner.workerId());
                }
            }
        }
        return owners;
    }

    /** Each slot's planned worker, which differs from its owner only during a handover; empty without a coordinator. */
    public Map<Integer, String> plan(String topic) {
        return coordinator != null ? coordinator.plan(topic) : Map.of();
    }
}
