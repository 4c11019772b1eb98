import Foundation

/// The main configuration the tests run Debian's nginx with: the binary's printed configuration (`musicvoting.conf`
/// in `folder`) inside nginx's `http` block, and nginx's pid, temp folders and logs in `folder`, so nothing of the
/// machine's own nginx is touched. `servers` adds server blocks of the test's own.
public func nginxMainConfiguration(folder: String, workerConnections: Int, servers: String = "") -> String {
    """
    \(getuid() == 0 ? "user root;" : "")
    worker_processes 1;
    pid \(folder)/nginx.pid;
    error_log \(folder)/error.log warn;
    events { worker_connections \(workerConnections); }
    http {
        access_log off;
        client_body_temp_path \(folder)/client_body;
        proxy_temp_path \(folder)/proxy;
        fastcgi_temp_path \(folder)/fastcgi;
        uwsgi_temp_path \(folder)/uwsgi;
        scgi_temp_path \(folder)/scgi;
        include \(folder)/musicvoting.conf;
    \(servers)
    }
    """
}
