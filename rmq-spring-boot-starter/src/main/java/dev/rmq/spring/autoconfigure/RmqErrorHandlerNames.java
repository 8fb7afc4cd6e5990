package dev.rmq.spring.autoconfigure;

/** The bean name of the error handler every listener uses unless it names another. */
final class RmqErrorHandlerNames {

    static final String DEFAULT = "rmqErrorHandler";

    private RmqErrorHandlerNames() {
    }
}
