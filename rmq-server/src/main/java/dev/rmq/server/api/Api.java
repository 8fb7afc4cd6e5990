package dev.rmq.server.api;

/** Where the API lives. Its version is in the path, so that a second version can be served beside the first. */
public final class Api {

    /** The base path of every endpoint of this version. */
    public static final String V1 = "/api/v1";

    private Api() {
    }
}
