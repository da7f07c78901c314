# Right, written differently: everything in float64 (the sum accumulates more precisely than the
# reference's), the non-finite row maxima replaced with masked_fill, keepdim=False reductions and an
# unsqueeze; cast back to the input dtype at the end.
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    wide = z.to(torch.float64)
    peak = wide.detach().max(dim=dim).values
    peak = peak.masked_fill(~torch.isfinite(peak), 0.0)
    total = torch.exp(wide - peak.unsqueeze(dim)).sum(dim=dim)
    return (torch.log(total) + peak).to(z.dtype)
