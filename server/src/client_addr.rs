//! The address a request comes from, for the per-address login limit: the peer of the TCP
//! connection, or behind a reverse proxy the header the operator names
//! (`--client-ip-header`), whose last address is the one the proxy itself added.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::connect_info::ConnectInfo;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::shared::AppRef;

pub(crate) struct ClientAddr(pub IpAddr);

impl FromRequestParts<AppRef> for ClientAddr {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, app: &AppRef) -> Result<ClientAddr, Infallible> {
        // Only the last entry is the proxy's: one that does not parse is not skipped for an
        // earlier one, which the client wrote.
        let forwarded = app.client_ip_header.as_deref().and_then(|name| {
            let value = parts.headers.get(name)?.to_str().ok()?;
            value.rsplit(',').next()?.trim().parse::<IpAddr>().ok()
        });
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip());
        // Every connection the server accepts carries its peer; the unspecified address is
        // for a request that reached the router some other way (none does).
        Ok(ClientAddr(
            forwarded
                .or(peer)
                .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        ))
    }
}
