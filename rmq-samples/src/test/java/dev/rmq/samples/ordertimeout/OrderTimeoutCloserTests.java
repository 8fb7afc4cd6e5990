package dev.rmq.samples.ordertimeout;

import dev.rmq.producer.OutgoingMessage;
import dev.rmq.test.EmbeddedRmq;
import dev.rmq.test.RmqTester;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order-timeout listener tested the way an application tests its own: {@code @EmbeddedRmq} starts Redis for
 * the test (the sample's own embedded default is off), and {@link RmqTester} waits for the deadline message.
 */
@SpringBootTest(properties = "samples.embedded=false")
@EmbeddedRmq
class OrderTimeoutCloserTests {

    @Autowired
    RmqTester rmq;
    @Autowired
    OrderBook book;

    @Test
    void anUnpaidOrderIsClosedWhenItsDeadlineArrives() {
        Order order = book.open(2599, Instant.now());

        RmqTester.Outcome outcome = rmq.sendAndAwait(deadlineOf(order));

        assertThat(outcome.consumed()).isTrue();
        assertThat(book.find(order.id())).get().extracting(Order::status).isEqualTo(Order.Status.CLOSED);
    }

    @Test
    void aPaidOrderStaysPaid() {
        Order order = book.open(2599, Instant.now());
        book.settleIfUnpaid(order.id(), Order.Status.PAID);

        assertThat(rmq.sendAndAwait(deadlineOf(order)).consumed()).isTrue();
        assertThat(book.find(order.id())).get().extracting(Order::status).isEqualTo(Order.Status.PAID);
        rmq.awaitDrained(OrderController.TOPIC);
    }

    private static OutgoingMessage deadlineOf(Order order) {
        return OutgoingMessage.fixedTime(OrderController.TOPIC, new OrderTimeout(order.id()), order.deadline())
                .withKey(order.id()).withSlotBasis(order.id());
    }
}
