package dev.rmq.samples.ordertimeout;

import dev.rmq.consumer.RmqMessage;
import dev.rmq.spring.annotation.RmqListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.time.Instant;

/** Closes an order that is still unpaid when its deadline message arrives. */
@Component
public class OrderTimeoutCloser {

    private static final Logger log = LoggerFactory.getLogger(OrderTimeoutCloser.class);

    private final OrderBook book;

    public OrderTimeoutCloser(OrderBook book) {
        this.book = book;
    }

    @RmqListener(topic = OrderController.TOPIC)
    public void close(RmqMessage<OrderTimeout> message) {
        String id = message.payload().orderId();
        Instant due = message.dueTime().orElseThrow();
        long lateMs = Duration.between(due, Instant.now()).toMillis();
        book.settleIfUnpaid(id, Order.Status.CLOSED).ifPresentOrElse(order -> {
            if (order.status() == Order.Status.CLOSED) {
                log.info("order-timeout: closed unpaid order {} at its deadline {} (handled {} ms after it)", id, due, lateMs);
            } else {
                log.info("order-timeout: order {} is {}, nothing to close", id, order.status());
            }
        }, () -> log.info("order-timeout: order {} is unknown (the demo keeps orders in memory)", id));
    }
}
