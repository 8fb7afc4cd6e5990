package dev.rmq.samples.ordertimeout;

import java.time.Instant;

/**
 * An order of the demo shop.
 *
 * @param id          the order id
 * @param amountCents what it costs
 * @param deadline    when it closes unless paid
 * @param status      UNPAID, PAID or CLOSED
 */
public record Order(String id, long amountCents, Instant deadline, Status status) {

    public enum Status {
        UNPAID, PAID, CLOSED
    }

    Order with(Status newStatus) {
        return new Order(id, amountCents, deadline, newStatus);
    }
}
