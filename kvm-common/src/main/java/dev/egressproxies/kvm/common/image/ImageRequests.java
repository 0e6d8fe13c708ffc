package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * Sends the HEAD and GET requests for an image and turns the ways sending fails into
 * {@link ImageFetchException}s: a timeout into the idle limit, deadline or budget that ran out, an
 * interruption into {@link Reason#INTERRUPTED}, anything else into {@link Reason#UNREACHABLE}.
 *
 * <p>Every request asks for {@code Accept-Encoding: identity}: a transparently compressed answer
 * has no usable Content-Length and its bytes are not the file the digest pins. User information
 * is stripped from the request: the JDK's client does not send it as credentials anyway, and
 * setting an Authorization header by hand is unsafe, because the Java 17 client repeats it to
 * whatever host a redirect names.
 */
final class ImageRequests {
    /** {@link HttpRequest#timeout} must be positive; this stands in for "no time left". */
    private static final Duration SHORTEST_TIMEOUT = Duration.ofMillis(1);

    private ImageRequests() {
    }

    /**
     * Sends a {@code method} request for {@code url} and returns once the response headers are in;
     * the body, not yet read, is the caller's to read and close (closing it stops the download).
     *
     * @throws ImageFetchException when no response arrives
     */
    static HttpResponse<BodyStream> send(HttpClient client, URI url, String method, TransferClock clock,
                                          FetchFailures failures) {
        clock.checkStart(failures);
        // The client's request timeout ends with the response headers, so it is the headers' idle limit.
        Duration headerWait = clock.headerWait();
        HttpRequest request = HttpRequest.newBuilder(withoutUserInformation(url))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("Accept-Encoding", "identity")
                .timeout(atLeastShortest(headerWait))
                .build();
        try {
            return client.send(request, BodyStream.handler(clock.idleLimit()));
        } catch (HttpTimeoutException timeout) {
            if (clock.idleBinds(headerWait)) {
                throw clock.stalled(failures, "in answer to the " + method + " request: no response headers arrived,"
                        + " 0 bytes of the image received", timeout);
            }
            throw clock.timeUp(failures, "while waiting for the server to answer the " + method + " request", timeout);
        } catch (IOException unreachable) {
            throw failures.transientFailure(Reason.UNREACHABLE, "could not fetch the image from " + failures.url()
                    + " (" + failures.describe(unreachable) + "); check that the server is reachable from this"
                    + " machine, then retry", unreachable);
        } catch (InterruptedException interrupted) {
            throw failures.interrupted("interrupted while waiting for " + failures.url() + " to answer", interrupted);
        }
    }

    /** {@code url} with its user information and fragment removed, everything else as it was written. */
    static URI withoutUserInformation(URI url) {
        String authority = url.getRawAuthority();
        String hostAndPort = authority.substring(authority.lastIndexOf('@') + 1);
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        String query = url.getRawQuery() == null ? "" : "?" + url.getRawQuery();
        try {
            return new URI(url.getScheme() + "://" + hostAndPort + path + query);
        } catch (URISyntaxException impossible) {
            // Every part comes from a URI that parsed, in its raw form, so the result parses too.
            throw new IllegalStateException("the image URL could not be rebuilt without its user information");
        }
    }

    private static Duration atLeastShortest(Duration timeout) {
        return timeout.compareTo(SHORTEST_TIMEOUT) < 0 ? SHORTEST_TIMEOUT : timeout;
    }
}
