package dev.rmq.server.api.delivery;

import java.util.List;

/** What a pull handed out: possibly nothing, when no message came within its timeout. */
public record PullView(List<DeliveryView> deliveries) {
}
