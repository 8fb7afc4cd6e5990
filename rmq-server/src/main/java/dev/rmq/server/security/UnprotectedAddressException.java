package dev.rmq.server.security;

/**
 * The server was told to listen on an address other machines can reach, and no API key is configured: anyone on
 * the network could send, take and delete messages, so it does not start.
 */
public class UnprotectedAddressException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String property;
    private final String address;

    /**
     * @param property the property that holds it: {@code server.address}, or {@code management.server.address}
     *                 for the actuator on a port of its own
     */
    public UnprotectedAddressException(String property, String address) {
        super(property + " is " + address + ", which is not a loopback address, and no API key is configured"
                + " (rmq.server.api-keys): anyone who can reach it could " + (property.startsWith("management.")
                ? "read the actuator's endpoints and use its write operations" : "send, take and delete messages"));
        this.property = property;
        this.address = address;
    }

    public String property() {
        return property;
    }

    public String address() {
        return address;
    }
}
