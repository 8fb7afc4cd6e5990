package dev.rmq.samples.ordertimeout;

import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The demo shop's orders, in memory. Status changes are atomic, so paying and closing cannot both win. */
@Component
public class OrderBook {

    private final Map<String, Order> orders = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger(1000);

    Order open(long amountCents, Instant deadline) {
        Order order = new Order("o-" + ids.incrementAndGet(), amountCents, deadline, Order.Status.UNPAID);
        orders.put(order.id(), order);
        return order;
    }

    Optional<Order> find(String id) {
        return Optional.ofNullable(orders.get(id));
    }

    /** The order after the attempt; it becomes {@code to} only if it was unpaid. */
    Optional<Order> settleIfUnpaid(String id, Order.Status to) {
        return Optional.ofNullable(orders.computeIfPresent(id,
                (key, order) -> order.status() == Order.Status.UNPAID ? order.with(to) : order));
    }
}
