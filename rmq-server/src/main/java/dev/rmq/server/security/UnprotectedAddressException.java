package dev.rmq.server.security;

/**
 * The server was told to listen on an address other machines can reach, and no API key is configured: anyone on
 * the network could send, take and delete messages, so it does not start.
 */
public class UnprotectedAddressException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String address;

    public UnprotectedAddressException(String address) {
        super("server.address is " + address + ", which is not a loopback address, and no API key is configured"
                + " (rmq.server.api-keys): anyone who can reach it could send, take and delete messages");
        this.address = address;
    }

    public String address() {
        return address;
    }
}
