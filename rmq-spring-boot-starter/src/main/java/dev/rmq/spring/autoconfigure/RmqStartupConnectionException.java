package dev.rmq.spring.autoconfigure;

/**
 * rmq could not reach Redis or ZooKeeper while the application started: says what was tried, where, and which
 * properties point elsewhere. {@link RmqStartupFailureAnalyzer} turns it into Spring Boot's start-up report.
 */
public class RmqStartupConnectionException extends RuntimeException {

    private final String service;
    private final String tried;
    private final String settings;

    /**
     * @param service  "Redis" or "ZooKeeper"
     * @param tried    where, and from which settings: "single server redis://127.0.0.1:6390 (from rmq.redis)"
     * @param settings what to set to point rmq elsewhere
     */
    public RmqStartupConnectionException(String service, String tried, String settings, Throwable cause) {
        super("rmq could not connect to " + service + " at " + tried + ": " + rootMessage(cause), cause);
        this.service = service;
        this.tried = tried;
        this.settings = settings;
    }

    public String service() {
        return service;
    }

    public String tried() {
        return tried;
    }

    public String settings() {
        return settings;
    }

    private static String rootMessage(Throwable cause) {
        Throwable root = cause;
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == null ? "no answer" : root.getMessage() != null ? root.getMessage() : root.getClass().getName();
    }
}
