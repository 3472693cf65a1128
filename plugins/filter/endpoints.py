"""The `endpoints` filter: how the connection role derives every client's addresses from the inventory."""


def endpoints(hosts, hostvars, port, host_vars=("ansible_host",), port_var=None):
    """{inventory host: "host:port"}, in inventory order: the host is the first of host_vars the host
    defines (else its inventory name); the port is its own port_var when it defines one (else port)."""
    result = {}
    for name in hosts:
        own = hostvars[name]
        host = next((own[var] for var in host_vars if var in own and own[var] not in (None, "")), name)
        result[name] = f"{host}:{int(own[port_var]) if port_var and port_var in own else int(port)}"
    return result


class FilterModule:
    def filters(self):
        return {"endpoints": endpoints}
