package dev.rmq.samples.ordertimeout;

import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Opens orders that close at a deadline unless paid. The deadline is a FIXED_TIME message keyed and
 * routed by the order id, so paying can cancel it by key.
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

    static final String TOPIC = "order-timeout";

    private final RmqProducer producer;
    private final OrderBook book;

    public OrderController(RmqProducer producer, OrderBook book) {
        this.producer = producer;
        this.book = book;
    }

    /** {@code POST /orders?amountCents=2599&payWithin=10s}. */
    @PostMapping
    public Order open(@RequestParam(defaultValue = "2599") long amountCents,
                      @RequestParam(defaultValue = "10s") String payWithin) {
        Duration window = DurationStyle.detectAndParse(payWithin);
        Order order = book.open(amountCents, Instant.now().plus(window).truncatedTo(ChronoUnit.MILLIS));
        producer.send(OutgoingMessage.fixedTime(TOPIC, new OrderTimeout(order.id()), order.deadline())
                .withKey(order.id()).withSlotBasis(order.id()));
        return order;
    }

    /** {@code POST /orders/o-1001/pay}: pays an unpaid order and cancels its deadline. */
    @PostMapping("/{id}/pay")
    public ResponseEntity<Order> pay(@PathVariable String id) {
        return book.settleIfUnpaid(id, Order.Status.PAID).map(order -> {
            if (order.status() == Order.Status.PAID) {
                producer.cancel(MessageRef.of(TOPIC, id).withSlotBasis(id));
            }
            return ResponseEntity.ok(order);
        }).orElse(ResponseEntity.notFound().build());
    }

    @GetMapping("/{id}")
    public ResponseEntity<Order> get(@PathVariable String id) {
        return ResponseEntity.of(book.find(id));
    }
}
