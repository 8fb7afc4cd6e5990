package dev.rmq.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Spring Boot's start-up report for Redis or ZooKeeper out of reach: what was tried, where, and what to set. */
public final class RmqStartupFailureAnalyzer extends AbstractFailureAnalyzer<RmqStartupConnectionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RmqStartupConnectionException cause) {
        return new FailureAnalysis(cause.getMessage(), "Start " + cause.service() + " there, or point rmq at yours: "
                + cause.settings() + ".", cause);
    }
}
