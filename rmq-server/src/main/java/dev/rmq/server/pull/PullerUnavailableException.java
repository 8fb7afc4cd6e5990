package dev.rmq.server.pull;

/** The server's puller is not running: the server is still starting, or already stopping. */
public class PullerUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PullerUnavailableException(String message) {
        super(message);
    }
}
