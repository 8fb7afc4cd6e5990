package dev.rmq.server.api.delivery;

import java.util.List;

/** Each token's outcome, in the order given. */
public record AckAllView(List<Result> results) {

    public record Result(String token, String outcome) {
    }
}
