package dev.egressproxies.endtoend;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running {@code egressctl serve}, started as its own process through the packaged launcher:
 * its address (read from the line it logs when it serves), HTTP calls to its API, and its stop by
 * a signal. Public for the KVM end-to-end tests.
 */
public final class ServeProcess implements AutoCloseable {
    private static final Pattern SERVING = Pattern.compile("serving (https?://[^/\\s]+)/");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final EgressctlProcess.Running running;
    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ServeProcess(EgressctlProcess.Running running, String base) {
        this.running = running;
        this.base = base;
    }

    /**
     * Starts {@code egressctl ARGUMENTS} (which include {@code serve}) and waits up to a minute for
     * it to serve.
     *
     * @throws AssertionError with its output when it exits or does not serve in time
     */
    public static ServeProcess start(EgressctlProcess egressctl, String... arguments) {
        EgressctlProcess.Running running = egressctl.start(arguments);
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < end) {
            Matcher serving = SERVING.matcher(read(running.err()));
            if (serving.find()) {
                return new ServeProcess(running, serving.group(1));
            }
            if (!running.process().isAlive()) {
                throw new AssertionError("serve exited before serving:\n" + running.await());
            }
            sleep(50);
        }
        running.process().destroyForcibly();
        throw new AssertionError("serve did not serve within 60 s:\n" + read(running.err()));
    }

    /** The base URL, like {@code http://127.0.0.1:41234}. */
    public String base() {
        return base;
    }

    /** The process. */
    public Process process() {
        return running.process();
    }

    /** Standard error so far. */
    public String err() {
        return read(running.err());
    }

    /** Sends a request without a token. */
    public HttpResponse<String> send(String method, String path) {
        return send(method, path, null);
    }

    /** Sends a request, with {@code Authorization: Bearer token} unless the token is null. */
    public HttpResponse<String> send(String method, String path, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** {@code GET path} as JSON, expecting 200. */
    public JsonNode get(String path) {
        HttpResponse<String> response = send("GET", path);
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " -> " + response.statusCode() + ": " + response.body());
        }
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Polls {@code GET path} until the document satisfies {@code condition}, up to {@code limit}. */
    public JsonNode await(String path, Duration limit, String what, Predicate<JsonNode> condition) {
        long end = System.nanoTime() + limit.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < end) {
            last = get(path);
            if (condition.test(last)) {
                return last;
            }
            if (!process().isAlive()) {
                throw new AssertionError("serve exited while waiting for " + what + ":\n" + err());
            }
            sleep(200);
        }
        throw new AssertionError("timed out after " + limit + " waiting for " + what + "; last " + path + ": " + last
                + "\n--- serve's standard error\n" + err());
    }

    /** The proxy of that entry and name in {@code /v1/proxies}, or null. */
    public static JsonNode proxy(JsonNode proxies, String entry, String name) {
        for (JsonNode proxy : proxies.path("proxies")) {
            if (proxy.path("entry").asText().equals(entry) && proxy.path("name").asText().equals(name)) {
                return proxy;
            }
        }
        return null;
    }

    /** Sends {@code signal} (TERM, INT, KILL, STOP, CONT) to the process. */
    public void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process().pid())).start();
            kill.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits up to {@code limit} for the process to exit and returns what it did. */
    public EgressctlProcess.Result awaitExit(Duration limit) {
        try {
            if (!process().waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("serve did not exit within " + limit + ":\n" + err());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return running.await();
    }

    /** Kills the process if it still runs. */
    @Override
    public void close() {
        if (process().isAlive()) {
            process().destroyForcibly();
            try {
                process().waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String read(java.nio.file.Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
