package dev.rmq.samples.pricechange;

/** A product's new price, in cents. */
public record PriceChange(String sku, long cents) {
}
