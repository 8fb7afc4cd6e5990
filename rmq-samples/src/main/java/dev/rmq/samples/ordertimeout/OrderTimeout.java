package dev.rmq.samples.ordertimeout;

/** The message that closes an order at its deadline unless it has been paid. */
public record OrderTimeout(String orderId) {
}
