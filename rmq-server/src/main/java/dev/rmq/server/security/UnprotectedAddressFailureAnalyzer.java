package dev.rmq.server.security;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Spring Boot's start-up report for a reachable address without API keys: what to set to start. */
public final class UnprotectedAddressFailureAnalyzer extends AbstractFailureAnalyzer<UnprotectedAddressException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnprotectedAddressException cause) {
        return new FailureAnalysis(cause.getMessage(), "Configure at least one API key, for example"
                + " RMQ_SERVER_APIKEYS_0_KEY=<a secret of 16 or more characters> and RMQ_SERVER_APIKEYS_0_SCOPE="
                + "read-write (or rmq.server.api-keys[0].key and .scope in application.yml); or leave "
                + cause.property() + " unset, or set it to " + Exposure.LOOPBACK + ", to listen on this machine only.",
                cause);
    }
}
