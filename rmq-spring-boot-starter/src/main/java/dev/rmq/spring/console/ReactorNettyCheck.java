package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.ClassUtils;

/**
 * The Reactor Netty that a reactive console is served by, checked at start. Before 1.3.8 a keep-alive connection can
 * stop reading after a response written before the request's body was read, as Spring Security's 403 to a write
 * without its CSRF token is: the browser's next request on that connection is never answered.
 */
final class ReactorNettyCheck {

    private static final Logger log = LoggerFactory.getLogger(ReactorNettyCheck.class);
    private static final String SERVER = "reactor.netty.http.server.HttpServer";
    /** Spring Boot's server on Reactor Netty: a WebClient alone brings Reactor Netty without serving with it. */
    private static final String BOOT_SERVER = "org.springframework.boot.reactor.netty.NettyWebServer";
    private static final int[] FIXED = {1, 3, 8};

    private ReactorNettyCheck() {
    }

    /** Logs a WARN when the application's Reactor Netty is one that stalls a connection so. */
    static void warnIfStalling(ClassLoader loader) {
        if (!ClassUtils.isPresent(SERVER, loader) || !ClassUtils.isPresent(BOOT_SERVER, loader)) {
            return;
        }
        String warning = warning(ClassUtils.resolveClassName(SERVER, loader).getPackage().getImplementationVersion());
        if (warning != null) {
            log.warn(warning);
        }
    }

    /** What to warn of for a Reactor Netty {@code version} ({@code 1.3.7}), or null for a fixed or unknown one. */
    static @Nullable String warning(@Nullable String version) {
        if (version == null) {
            return null;
        }
        String[] parts = version.split("[.-]");
        for (int i = 0; i < FIXED.length; i++) {
            int part;
            try {
                part = i < parts.length ? Integer.parseInt(parts[i]) : 0;
            } catch (NumberFormatException e) {
                return null;
            }
            if (part != FIXED[i]) {
                return part > FIXED[i] ? null : "the rmq console is served by Reactor Netty " + version
                        + ", which can stop reading a keep-alive connection after a response written before the"
                        + " request's body was read (Spring Security's 403 to a write without its CSRF token), so"
                        + " the browser's next request on it is never answered: manage reactor-netty-core and"
                        + " reactor-netty-http at 1.3.8 or later";
            }
        }
        return null;
    }
}
