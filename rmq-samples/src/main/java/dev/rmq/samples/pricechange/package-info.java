/**
 * price-change, a RANGE_MERGE topic: bursts of price updates for one product merge into a single
 * "render the price image" job, due one merge window after the first update, with the latest price.
 */
@NullMarked
package dev.rmq.samples.pricechange;

import org.jspecify.annotations.NullMarked;
