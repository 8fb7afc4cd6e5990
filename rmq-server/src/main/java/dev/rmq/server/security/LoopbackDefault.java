package dev.rmq.server.security;

import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Keeps a server without API keys off the network: it binds to {@value Exposure#LOOPBACK} unless told otherwise,
 * and refuses to start when told to listen on a reachable address ({@link UnprotectedAddressException}). It runs
 * before the web server exists, so the address is settled before anything listens.
 */
public class LoopbackDefault implements EnvironmentPostProcessor, Ordered {

    static final String SOURCE = "rmqServerLoopbackDefault";

    private final Log log;

    /** Logging is not set up when environment post-processors run; Boot replays this log once it is. */
    public LoopbackDefault(DeferredLogFactory logs) {
        this.log = logs.getLog(LoopbackDefault.class);
    }

    @Override
    public int getOrder() {
        // after application.yml, the environment and the command line have been read
        return ConfigDataEnvironmentPostProcessor.ORDER + 1;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Exposure exposure = Exposure.of(environment);
        switch (exposure.kind()) {
            case KEYS -> log.info(exposure.keys() + " API key(s) configured: every request but /actuator/health needs"
                    + " Authorization: Bearer <key>" + (exposure.address() == null ? "" : "; listening on "
                    + exposure.address()));
            case DEFAULT_LOOPBACK -> {
                // last: nothing the user configured is overridden, there being no server.address anywhere
                environment.getPropertySources().addLast(new MapPropertySource(SOURCE, loopback(environment, true)));
                log.info("No API key is configured (rmq.server.api-keys), so the server listens on loopback only ("
                        + Exposure.LOOPBACK + "): it can be reached from this machine alone. Configure an API key to"
                        + " serve other machines.");
            }
            case CONFIGURED_LOOPBACK -> {
                environment.getPropertySources().addLast(new MapPropertySource(SOURCE, loopback(environment, false)));
                log.info("No API key is configured (rmq.server.api-keys), so the server"
                        + " listens on loopback only (" + exposure.address() + "): it can be reached from this"
                        + " machine alone. Configure an API key to serve other machines.");
            }
            case UNPROTECTED -> throw new UnprotectedAddressException(exposure.property(),
                    Objects.requireNonNull(exposure.address(), "an unprotected server has its address"));
        }
    }

    /**
     * Loopback for server.address (when {@code server}, which the caller knows unset) and for an unset
     * management.server.address: the actuator on a port of its own binds to every interface unless that says
     * otherwise, whatever server.address is. Spring Boot refuses that address when the actuator shares the server's
     * port, so then it is left alone.
     */
    private static Map<String, Object> loopback(ConfigurableEnvironment environment, boolean server) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        if (server) {
            defaults.put(Exposure.SERVER_ADDRESS, Exposure.LOOPBACK);
        }
        boolean actuatorUnset = Exposure.configured(environment, Exposure.MANAGEMENT_ADDRESS) == null;
        if (actuatorUnset && Exposure.actuatorApart(environment)) {
            defaults.put(Exposure.MANAGEMENT_ADDRESS, Exposure.LOOPBACK);
        }
        return defaults;
    }
}
